"""Quick start with the reference implementation's Python client (PyPI qwed, pinned in
infra/qwed-client.requirements.txt; infra/install-tools.sh installs it into
.tools/venv-qwed-client-7.3.0). Uses a key from examples/quickstart.sh:

    eval "$(examples/quickstart.sh | tail -1)"
    .tools/venv-qwed-client-7.3.0/bin/python examples/verify_math.py

SVC_BASE_URL (default http://127.0.0.1:8000), SVC_API_KEY (required).
"""
import os
import sys

from qwed_sdk.client import QWEDClient

key = os.environ.get("SVC_API_KEY")
if not key:
    sys.exit("SVC_API_KEY is not set: run examples/quickstart.sh first")
client = QWEDClient(api_key=key, base_url=os.environ.get("SVC_BASE_URL", "http://127.0.0.1:8000"))
result = client.verify_math("(x+1)^2 = x^2 + 2*x + 1")
print("status:", result.status)
print("proof_ref:", (result.result or {}).get("proof_ref") or "none")
