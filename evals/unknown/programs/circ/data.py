from circ.models import Encoder
class Tokenizer: pass
