from circ.data import Tokenizer
class Encoder: pass
