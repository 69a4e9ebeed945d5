# Sandbox bootstrap, run inside the container as `python3 -s -P -B -c <this file>`.
#
# The container has no host mounts and a read-only root, so everything the run needs arrives
# on stdin as one JSON envelope written by activities/sandbox/runner.ts:
#   {"code": str, "stdin": base64, "files": [{"name": str, "content": base64}]}
# Files are written to /tmp/work (the tmpfs, noexec), which becomes the working directory;
# the code then runs as __main__ with sys.stdin replaced by the envelope's stdin bytes.
# Not part of the image: changing it needs no rebuild.
import base64
import io
import json
import linecache
import os
import sys
import traceback


def _main():
    envelope = json.loads(sys.stdin.buffer.read())
    work = "/tmp/work"
    os.makedirs(work, exist_ok=True)
    for entry in envelope.get("files", []):
        name = entry["name"]
        # runner.ts validates names; refuse anything that could leave the work directory anyway.
        if not name or name in (".", "..") or "/" in name or "\0" in name:
            sys.stderr.write("sandbox: invalid file name\n")
            sys.exit(2)
        with open(os.path.join(work, name), "wb") as fh:
            fh.write(base64.b64decode(entry["content"]))
    os.chdir(work)
    sys.stdin = io.TextIOWrapper(io.BytesIO(base64.b64decode(envelope.get("stdin", ""))), encoding="utf-8")
    sys.argv = ["main.py"]
    source = envelope["code"]
    del envelope
    # Tracebacks show the user's lines although main.py exists nowhere on disk.
    linecache.cache["main.py"] = (len(source), None, source.splitlines(True), "main.py")
    scope = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
    try:
        exec(compile(source, "main.py", "exec"), scope)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - report like the interpreter, minus this frame
        traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next)
        sys.exit(1)


_main()
