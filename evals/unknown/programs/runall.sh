#!/bin/bash
PY=/opt/venv/bin/python
TR=/opt/venv/bin/torchrun
cd /work/scratch/unknown-progs
for p in fmt bn emptyds lambdaspawn mainguard hparam optgroup scaler jit recursion s3 onnxexp; do
  nice timeout 120 $PY $p.py > out_$p.txt 2>&1; echo "rc=$?" >> out_$p.txt
done
env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT nice timeout 60 $PY rankunset.py > out_rankunset.txt 2>&1; echo "rc=$?" >> out_rankunset.txt
for spec in unpack:4 emptyparams:2 boolamb:4 item:2 jsondump:4 samplershuffle:2 nopg:2 makedirs:4; do
  p=${spec%%:*}; n=${spec##*:}
  nice timeout 180 $TR --nproc_per_node=$n $p.py > out_$p.txt 2>&1; echo "rc=$?" >> out_$p.txt
done
echo done > ALLDONE
