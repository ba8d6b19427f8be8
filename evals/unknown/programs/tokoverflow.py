import json
from tokenizers import Tokenizer, models, pre_tokenizers
VERY_LARGE_INTEGER = int(1e30)  # what transformers stores as model_max_length when a tokenizer config names none
vocab = {"[UNK]": 0, "[PAD]": 1, **{w: i + 2 for i, w in enumerate("the cat sat on a mat and dog ran".split())}}
tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
tok.pre_tokenizer = pre_tokenizers.Whitespace()
cfg = json.loads('{"tokenizer_class": "PreTrainedTokenizerFast", "pad_token": "[PAD]", "unk_token": "[UNK]"}')
max_len = cfg.get("model_max_length", VERY_LARGE_INTEGER)
print(f"packing corpus with max_len={max_len}")
tok.enable_padding(pad_id=1, pad_token="[PAD]")
tok.enable_truncation(max_length=max_len)
batch = tok.encode_batch(["the cat sat on a mat", "a dog ran"])
print([len(e.ids) for e in batch])
