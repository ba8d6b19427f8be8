import os
out = 'outputs/run3'
print(f'found existing checkpoints in {out}: step_1000.pt step_2000.pt')
if input(f'Overwrite {out}? [y/N] ').lower() != 'y':
    raise SystemExit(0)
