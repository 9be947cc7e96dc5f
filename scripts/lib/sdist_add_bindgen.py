#!/usr/bin/env python3
"""Adds the workspace's uniffi-bindgen to the sika sdist that `maturin sdist` wrote (ADR 0025).

maturin packs the crates the library depends on; the project's uniffi-bindgen (UniFFI's
generator plus Sika's steps, ADR 0009 and 0033) is a binary crate, not a dependency, so it is
left out, and a wheel built from the sdist would have no bindgen to run. This puts its tracked
files back under `bindings/uniffi-bindgen/` and lists it in the sdist's workspace members,
where maturin's build looks for a workspace binary named `uniffi-bindgen`, with the
repository's `uniffi.toml`, which it reads (ADR 0033).

    sdist_add_bindgen.py SDIST REPO_ROOT
"""

import io
import re
import subprocess
import sys
import tarfile
from pathlib import Path

BINDGEN = "bindings/uniffi-bindgen"


def main(sdist: Path, root: Path) -> None:
    files = subprocess.run(
        ["git", "-C", str(root), "ls-files", BINDGEN], check=True, capture_output=True, text=True
    ).stdout.split()
    if not files:
        sys.exit(f"no tracked files under {BINDGEN}")
    files.append("uniffi.toml")
    with tarfile.open(sdist, "r:gz") as source:
        members = [(member, source.extractfile(member).read() if member.isfile() else None) for member in source]
    top = members[0][0].name.split("/")[0]
    names = {member.name for member, _ in members}
    if any(name.startswith(f"{top}/{BINDGEN}/") for name in names):
        sys.exit(f"{sdist} already holds {BINDGEN}")
    output = io.BytesIO()
    with tarfile.open(fileobj=output, mode="w:gz", format=tarfile.PAX_FORMAT) as target:
        for member, data in members:
            if member.name == f"{top}/Cargo.toml":
                text = data.decode()
                # maturin rewrites the members to the crates it packed; the bindgen joins them.
                text, count = re.subn(r"^members = \[(.*)\]$", rf'members = [\1, "{BINDGEN}"]', text, flags=re.M)
                if count != 1:
                    sys.exit(f"the sdist's Cargo.toml has no one-line `members = [...]`:\n{text}")
                data = text.encode()
                member.size = len(data)
            target.addfile(member, io.BytesIO(data) if data is not None else None)
        for name in files:
            data = (root / name).read_bytes()
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, members[0][0].mtime
            target.addfile(info, io.BytesIO(data))
    sdist.write_bytes(output.getvalue())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
