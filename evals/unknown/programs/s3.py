import io, os, boto3, torch
for k in list(os.environ):
    if k.startswith("AWS_"): del os.environ[k]
os.environ["AWS_SHARED_CREDENTIALS_FILE"] = "/nonexistent"; os.environ["AWS_CONFIG_FILE"] = "/nonexistent"
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
buf = io.BytesIO(); torch.save({"w": torch.zeros(2)}, buf)
s3 = boto3.client("s3", region_name="us-east-1")
s3.put_object(Bucket="ml-checkpoints", Key="runs/exp42/step_2000.pt", Body=buf.getvalue())
