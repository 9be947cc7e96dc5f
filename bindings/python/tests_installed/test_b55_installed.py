"""B55: the release files as a merchant installs them. Run by scripts/test-installed-python
only, in a fresh venv holding the wheel from dist/python, with no Rust toolchain and no C
compiler on PATH, next to the installed-package subset of tests/ (which this module's sandbox
helpers come from). SIKA_SANDBOX_BIN is the sandbox from dist/sandbox."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import struct
import sys
import sysconfig
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import sika  # noqa: E402
from support import Sandbox, charge  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
# The one version (ADR 0025): [workspace.package] of the workspace's Cargo.toml.
WORKSPACE_VERSION = re.search(
    r'^\[workspace\.package\]\n(?:[^\[].*\n)*?version = "([^"]+)"', (REPO / "Cargo.toml").read_text(), re.M
).group(1)
GLIBC_FLOOR = (2, 17)
SANDBOX = Path(os.environ["SIKA_SANDBOX_BIN"])


def elf_sections_and_glibc_versions(path: Path) -> tuple[set[str], set[tuple[int, ...]]]:
    """The section names of a 64-bit little-endian ELF file and the GLIBC_x.y versions its
    version needs (.gnu.version_r) ask for: what readelf shows, without binutils on PATH."""
    data = path.read_bytes()
    assert data[:6] == b"\x7fELF\x02\x01", f"{path} is not a 64-bit little-endian ELF file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_offset = headers[shstrndx][4]

    def text(offset: int) -> str:
        return data[offset : data.index(b"\0", offset)].decode()

    sections = {text(names_offset + h[0]): h for h in headers}
    versions: set[tuple[int, ...]] = set()
    needs = sections.get(".gnu.version_r")
    if needs is not None:
        strings = headers[needs[6]][4]  # sh_link: the dynamic string table
        entry = needs[4]
        while True:
            _, _, _, aux, following = struct.unpack_from("<HHIII", data, entry)
            vernaux = entry + aux
            while True:
                _, _, _, name, vernaux_next = struct.unpack_from("<IHHII", data, vernaux)
                match = re.fullmatch(r"GLIBC_(\d+(?:\.\d+)+)", text(strings + name))
                if match:
                    versions.add(tuple(int(part) for part in match.group(1).split(".")))
                if not vernaux_next:
                    break
                vernaux += vernaux_next
            if not following:
                break
            entry += following
    return set(sections), versions


def test_b55_no_rust_toolchain_and_no_c_compiler_on_path():
    assert {tool: shutil.which(tool) for tool in ("cargo", "rustc", "rustup", "cc", "gcc", "clang")} == {
        tool: None for tool in ("cargo", "rustc", "rustup", "cc", "gcc", "clang")
    }


def test_b55_sika_is_the_released_wheel_at_the_workspace_version():
    distribution = importlib.metadata.distribution("sika")
    assert distribution.version == WORKSPACE_VERSION
    assert sika.__version__ == WORKSPACE_VERSION
    installed = Path(sysconfig.get_paths()["platlib"]).resolve()
    assert Path(sika.__file__).resolve().parent == installed / "sika"
    wheel = distribution.read_text("WHEEL")
    assert "Tag: py3-none-manylinux_2_17_x86_64" in wheel, wheel
    assert distribution.metadata["License-Expression"] == "MIT OR Apache-2.0"


def assert_both_licences(distribution: importlib.metadata.Distribution) -> None:
    licences = {Path(str(file)).name: file for file in distribution.files if "licenses" in Path(str(file)).parts}
    assert sorted(licences) == ["LICENSE-APACHE", "LICENSE-MIT"]
    assert licences["LICENSE-MIT"].read_text().startswith("MIT License\n\nCopyright (c) the Sika authors\n")
    apache = " ".join(licences["LICENSE-APACHE"].read_text().split())
    assert apache.startswith("Apache License Version 2.0, January 2004 http://www.apache.org/licenses/ TERMS")


def test_b55_the_wheel_carries_both_licences():
    assert_both_licences(importlib.metadata.distribution("sika"))


def test_b55_the_library_is_stripped_and_needs_glibc_2_17_at_most():
    library = Path(sika.__file__).resolve().parent / "_ffi" / "libsika_ffi.so"
    sections, versions = elf_sections_and_glibc_versions(library)
    # Stripped after the bindings were generated: the loader's symbols only.
    assert ".dynsym" in sections and ".symtab" not in sections
    assert versions and max(versions) <= GLIBC_FLOOR, sorted(versions)


def test_b55_the_sandbox_is_the_released_one():
    # Not a development build: one of dist/sandbox's, stripped, for glibc 2.17.
    assert "target" not in SANDBOX.resolve().parts
    sections, versions = elf_sections_and_glibc_versions(SANDBOX)
    assert ".symtab" not in sections
    assert versions and max(versions) <= GLIBC_FLOOR, sorted(versions)
    try:
        distribution = importlib.metadata.distribution("sika-sandbox")
    except importlib.metadata.PackageNotFoundError:
        # The tarball's: a directory named for the workspace version, the licences beside it.
        assert SANDBOX.parent.name == f"sika-sandbox-{WORKSPACE_VERSION}-x86_64-linux-gnu"
        assert {"LICENSE-MIT", "LICENSE-APACHE", "README.md"} <= {p.name for p in SANDBOX.parent.iterdir()}
    else:
        # The wheel's: its entry point is the `sika-sandbox` on PATH.
        assert distribution.version == WORKSPACE_VERSION
        assert Path(shutil.which("sika-sandbox")).resolve() == SANDBOX.resolve()
        assert_both_licences(distribution)


async def test_b55_a_mobile_money_payment_confirms_against_the_released_sandbox():
    sandbox = Sandbox("--confirm-after-ms", "150")
    try:
        client = sandbox.client()
        await client.initiate_charge(charge("B55-ORDER", phone="+233244120000", amount="25.50"))
        await client.await_final_status("B55-ORDER")
        expected = sika.ExpectedPayment(amount=Decimal("25.50"), currency="GHS")
        check = await client.confirm_payment("B55-ORDER", expected)
        assert isinstance(check, sika.PaymentCheck.CONFIRMED), check
    finally:
        sandbox.stop()
