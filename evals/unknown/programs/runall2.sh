#!/bin/bash
PY=/opt/venv/bin/python
cd /work/scratch/unknown-progs
mkdir -p circ && printf 'from circ.models import Encoder\nclass Tokenizer: pass\n' > circ/data.py && printf 'from circ.data import Tokenizer\nclass Encoder: pass\n' > circ/models.py && touch circ/__init__.py
printf 'import circ.models\n' > circmain.py
nice timeout 60 $PY circmain.py > out_circ.txt 2>&1; echo "rc=$?" >> out_circ.txt
cat > eof.py <<'PY'
import os
out = 'outputs/run3'
print(f'found existing checkpoints in {out}: step_1000.pt step_2000.pt')
if input(f'Overwrite {out}? [y/N] ').lower() != 'y':
    raise SystemExit(0)
PY
nice timeout 60 $PY eof.py < /dev/null > out_eof.txt 2>&1; echo "rc=$?" >> out_eof.txt
nice timeout 180 $PY -m torch.distributed.launch --nproc_per_node=2 localrank.py > out_localrank.txt 2>&1; echo "rc=$?" >> out_localrank.txt
echo done > ALLDONE2
