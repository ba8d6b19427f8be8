import os, tarfile
path = 'data/imagenette2-320.tgz'  # fetched with `wget -q $DATA_URL -O data/imagenette2-320.tgz` by the job script
print(f'extracting {path} ({os.path.getsize(path)} bytes) to data/')
with tarfile.open(path) as tar:
    tar.extractall('data/', filter='data')
