#!/usr/bin/env python3
"""An independent verifier of cargo golden's test-result attestation.

    verify_attestation.py RUN_DIR PUBLIC_KEY

RUN_DIR is a run dir (artifacts/<run_id>), PUBLIC_KEY a minisign public
key file (the key that signed the run). The DSSE envelope is verified with
securesystemslib, not with cargo golden's code; the statement is then
checked against the in-toto Statement v1 and test-result v0.1 specs (field
names, types, digests), its subject against SHA256SUMS, and SHA256SUMS
against every file it lists.

Exits 0 and prints "OK" when everything holds, else exits 1 saying why.
"""
import base64
import hashlib
import json
import pathlib
import re
import sys

from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey

STATEMENT = "test-result.intoto.json"
ENVELOPE = "test-result.intoto.dsse.json"
SUMS = "SHA256SUMS"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
EXTENSION = "https://crates.io/crates/cargo-golden/attestation/v1"
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Invalid(Exception):
    pass


def require(cond, why):
    if not cond:
        raise Invalid(why)


def minisign_key(path):
    """The Ed25519 public key of a minisign .pub file, as securesystemslib
    wants it, under the minisign key id (what the envelope's keyid says)."""
    lines = [l.strip() for l in pathlib.Path(path).read_text().splitlines()]
    line = next(l for l in lines if l and not l.startswith("untrusted comment:"))
    raw = base64.b64decode(line)
    require(len(raw) == 42 and raw[:2] == b"Ed", f"{path} is not a minisign Ed25519 public key")
    keyid = "%016X" % int.from_bytes(raw[2:10], "little")
    return SSlibKey(keyid, "ed25519", "ed25519", {"public": raw[10:42].hex()})


def descriptors(value, what):
    require(isinstance(value, list), f"{what} is not a list")
    for d in value:
        require(isinstance(d, dict), f"{what}: {d!r} is not an object")
        require(isinstance(d.get("name"), str), f"{what}: a descriptor has no name")
        digest = d.get("digest")
        require(isinstance(digest, dict) and digest, f"{what}: {d['name']} has no digest")
        require(HEX64.match(digest.get("sha256", "")), f"{what}: {d['name']} has no sha256 digest")


def check_statement(st):
    require(isinstance(st, dict), "the statement is not an object")
    extra = set(st) - {"_type", "subject", "predicateType", "predicate"}
    require(not extra, f"the statement has fields outside Statement v1: {sorted(extra)}")
    # Extension fields are named by a TypeURI (in-toto's parsing rules).
    p = st.get("predicate")
    require(isinstance(p, dict), "predicate is not an object")
    known = {"result", "configuration", "url", "passedTests", "warnedTests", "failedTests"}
    for key in set(p) - known:
        require(re.match(r"^https?://", key), f"predicate field {key!r} is neither test-result v0.1's nor a TypeURI")
    require(st.get("_type") == STATEMENT_TYPE, f"_type is {st.get('_type')!r}")
    require(st.get("predicateType") == PREDICATE_TYPE, f"predicateType is {st.get('predicateType')!r}")
    descriptors(st.get("subject"), "subject")
    require(p.get("result") in ("PASSED", "WARNED", "FAILED"), f"result is {p.get('result')!r}")
    descriptors(p.get("configuration"), "configuration")
    require(isinstance(p.get("url", ""), str), "url is not a string")
    for key in ("passedTests", "warnedTests", "failedTests"):
        tests = p.get(key)
        require(isinstance(tests, list) and all(isinstance(t, str) for t in tests), f"{key} is not a list of names")
        require(all(t.startswith(("golden/", "verify/")) for t in tests), f"{key} names a test outside golden/ and verify/")
    ours = p.get(EXTENSION, {})
    if p["result"] == "PASSED":
        require(not p["failedTests"] and not p["warnedTests"], "result PASSED with failed or warned tests")
    if ours.get("exitCode", 0) != 0:
        require(p["result"] == "FAILED", f"exit code {ours['exitCode']} but result {p['result']}")


def check_sums(run_dir, st):
    sums = (run_dir / SUMS).read_bytes()
    subject = {d["name"]: d["digest"]["sha256"] for d in st["subject"]}
    require(subject.get(SUMS) == hashlib.sha256(sums).hexdigest(), f"subject {SUMS} does not match the file")
    for line in sums.decode().splitlines():
        digest, name = line.split("  ", 1)
        path = run_dir / name
        require(path.is_file() and not path.is_symlink(), f"{name} is missing")
        require(hashlib.sha256(path.read_bytes()).hexdigest() == digest, f"{name} does not match {SUMS}")


def main():
    run_dir, key = pathlib.Path(sys.argv[1]), minisign_key(sys.argv[2])
    try:
        data = json.loads((run_dir / ENVELOPE).read_text())
        require(data.get("payloadType") == PAYLOAD_TYPE, f"payloadType is {data.get('payloadType')!r}")
        envelope = Envelope.from_dict(data)
        try:
            envelope.verify([key], 1)
        except Exception as e:  # securesystemslib's VerificationError and friends
            raise Invalid(f"the envelope does not verify with key {key.keyid}: {e}")
        require(envelope.payload == (run_dir / STATEMENT).read_bytes(), f"the envelope's payload is not {STATEMENT}")
        statement = json.loads(envelope.payload)
        check_statement(statement)
        check_sums(run_dir, statement)
    except Invalid as e:
        print(f"INVALID: {e}")
        return 1
    print(f"OK: {statement['predicate']['result']}, signed by {key.keyid}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
