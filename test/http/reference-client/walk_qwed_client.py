"""Drives every public method of the reference's Python client (qwed_sdk.client: QWEDClient and
QWEDAsyncClient, pinned by infra/qwed-client.requirements.txt) against a running API, each with
only its required arguments (every other argument keeps the client's default), and prints one
JSON object: per client and method, what the method returned or raised. The methods are listed
by introspection, so a method added in a later release is walked (and, having no arguments
here, reported as such) rather than skipped. The assertions live in
test/http/reference-client.test.ts.

usage: walk_qwed_client.py BASE_URL API_KEY CSV_PATH PNG_PATH
"""
import asyncio
import dataclasses
import inspect
import json
import sys

import httpx
from qwed_sdk.client import QWEDAsyncClient, QWEDClient

BASE_URL, API_KEY, CSV_PATH, PNG_PATH = sys.argv[1:5]

DIAGNOSTIC = {
    "status": "UNVERIFIABLE",
    "agent_message": "not proven",
    "developer_fields": {"constraint_id": "sql_verifier.sql_valid"},
    "proof_ref": None,
}


def required_args(state):
    """The required arguments of each method (from earlier answers where one needs another)."""
    return {
        "health": (),
        "verify": ("What is 15% of 240?",),
        "verify_logic": ("(AND (GT x 5) (LT x 10))",),
        "verify_math": ("2 + 2 = 4",),
        "verify_code": ("import os\nos.system(input())",),
        "verify_fact": ("Paris is the capital of France.", "Paris is the capital of France. It lies on the Seine."),
        "verify_sql": ("SELECT 1",),
        "verify_stats": ("mean(price)", CSV_PATH),
        "verify_consensus": ("2 + 2 = 4",),
        "verify_image": (PNG_PATH, "The image is 4x3 pixels"),
        "verify_batch": ([{"query": "2 + 2 = 4", "type": "math"}, {"query": "3 * 3 = 10", "type": "math"}],),
        "get_batch_status": (state.get("job_id", "missing"),),
        "create_verification_context_from_diagnostic": (DIAGNOSTIC, "SELECT 1", "sql"),
        "validate_verification_context": (state.get("document", {}),),
        "resolve_verification_context": (state.get("document", {}),),
        "close": (),
    }


# Methods whose arguments come from another method's answer run after it.
ORDER = ["verify_batch", "get_batch_status", "create_verification_context_from_diagnostic", "validate_verification_context", "resolve_verification_context"]


def public_methods(cls):
    names = [n for n, f in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")]
    # close last; the dependent ones in their order, the rest alphabetically first.
    rest = sorted(n for n in names if n not in ORDER and n != "close")
    return rest + [n for n in ORDER if n in names] + (["close"] if "close" in names else [])


def encode(value):
    if dataclasses.is_dataclass(value):
        return {"type": type(value).__name__, **dataclasses.asdict(value)}
    return value


def outcome_of(call):
    """Runs one call: {'returned': ...} or {'raised': ..., 'status': ..., 'body': ...}."""
    try:
        return {"returned": encode(call())}
    except httpx.HTTPStatusError as err:
        return {"raised": "HTTPStatusError", "status": err.response.status_code, "body": err.response.text[:2000]}
    except Exception as err:  # noqa: BLE001 - every failure is reported, the test asserts
        return {"raised": type(err).__name__, "message": str(err)[:2000]}


def remember(state, name, out):
    returned = out.get("returned")
    if name == "verify_batch" and isinstance(returned, dict):
        state["job_id"] = returned.get("job_id")
    if name == "create_verification_context_from_diagnostic" and isinstance(returned, dict):
        state["document"] = returned


def walk_sync():
    state, report = {}, {}
    client = QWEDClient(api_key=API_KEY, base_url=BASE_URL)
    for name in public_methods(QWEDClient):
        args = required_args(state).get(name)
        if args is None:
            report[name] = {"raised": "NoArguments", "message": f"the walk knows no arguments for {name}"}
            continue
        out = outcome_of(lambda: getattr(client, name)(*args))
        if name == "close":
            out["closed"] = client._client.is_closed
        remember(state, name, out)
        report[name] = out
    return report


async def walk_async():
    state, report = {}, {}
    async with QWEDAsyncClient(api_key=API_KEY, base_url=BASE_URL) as client:
        for name in public_methods(QWEDAsyncClient):
            args = required_args(state).get(name)
            if args is None:
                report[name] = {"raised": "NoArguments", "message": f"the walk knows no arguments for {name}"}
                continue
            try:
                out = {"returned": encode(await getattr(client, name)(*args))}
            except httpx.HTTPStatusError as err:
                out = {"raised": "HTTPStatusError", "status": err.response.status_code, "body": err.response.text[:2000]}
            except Exception as err:  # noqa: BLE001
                out = {"raised": type(err).__name__, "message": str(err)[:2000]}
            remember(state, name, out)
            report[name] = out
    return report


if __name__ == "__main__":
    print(json.dumps({"sync": walk_sync(), "async": asyncio.run(walk_async())}, default=str))
