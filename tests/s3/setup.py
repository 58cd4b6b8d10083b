"""Prepares the moto server for tests/s3.rs: a bucket, two users with full access ("machine a"
and "machine b", different credentials) and one whose IAM policy allows only the prefix
shared/scope-a/ (the isolation of README "A store shared across machines"); then turns IAM
enforcement on (signatures and policies are checked from here on). Prints shell exports."""

import json
import sys
import urllib.request

import boto3

endpoint = sys.argv[1]
bucket = "spill-test"
kw = dict(endpoint_url=endpoint, region_name="us-east-1",
          aws_access_key_id="setup", aws_secret_access_key="setup")
s3 = boto3.client("s3", **kw)
iam = boto3.client("iam", **kw)
s3.create_bucket(Bucket=bucket)

everything = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
only_scope_a = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow",
     "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
                "s3:ListMultipartUploadParts"],
     "Resource": f"arn:aws:s3:::{bucket}/shared/scope-a/*"},
    {"Effect": "Allow", "Action": ["s3:ListBucket", "s3:ListBucketMultipartUploads"],
     "Resource": f"arn:aws:s3:::{bucket}",
     "Condition": {"StringLike": {"s3:prefix": "shared/scope-a/*"}}}]}

for name, policy in [("a", everything), ("b", everything), ("scoped", only_scope_a)]:
    iam.create_user(UserName=name)
    iam.put_user_policy(UserName=name, PolicyName="spill", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    var = name.upper()
    print(f"export SPILL_TEST_S3_{var}_KEY={key['AccessKeyId']}")
    print(f"export SPILL_TEST_S3_{var}_SECRET={key['SecretAccessKey']}")

urllib.request.urlopen(urllib.request.Request(
    f"{endpoint}/moto-api/reset-auth", data=b"0", headers={"Content-Type": "text/plain"}))
print(f"export SPILL_TEST_S3_BUCKET={bucket}")
