#!/usr/bin/env python3
"""B110: every Swift snippet of README.md and bindings/swift/README.md, as a merchant pastes it.

Writes a SwiftPM package (OUT/shop) that scripts/test-swift builds with every warning an error:
- the manifest fragment both READMEs show (`dependencies: ..., targets: ...`) is the package's
  manifest, as written, with one executable target added per code snippet;
- the root README's quick start is the `Shop` target's main.swift, unchanged;
- every other code snippet is the main.swift of a target of its own, unchanged but for the
  imports a file needs (`Foundation`, `Sika`) when it has none, and a `Context.swift` beside it
  that declares, for the names the snippet uses and does not declare, what its surroundings
  would (`client`, `reference`, `orders`, ...);
- the full manifest in bindings/swift/README.md must be tests/swiftpm-consumer's (built and
  run by scripts/test-swift), comments aside;
- a snippet whose first line is a comment naming a file of tests/swiftpm-consumer (a test
  of the kit, B313) must be that file, byte for byte: the consumer package runs it.
Sika itself is a copy of bindings/swift's sources next to the package, as `sika-swift`, the
name the READMEs give it. `import Logging` (swift-log cannot be fetched here) finds a module
declaring only the part of swift-log's published API the README uses.

  scripts/lib/swift_readme_snippets.py ROOT OUT
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

READMES = ("README.md", "bindings/swift/README.md")

# What a snippet's surroundings hold, by the name the snippet uses: (declaration, names it needs).
CONTEXT: dict[str, tuple[str, tuple[str, ...]]] = {
    "reference": ('let reference = "ORDER-1001"', ()),
    "secretKey": ('let secretKey = "sk_test_readme_snippet"', ()),
    "client": ("let client = try! Client.fromEnv()", ()),
    "blocking": ("let blocking = try! BlockingClient.fromEnv()", ()),
    "request": (
        'let request = ChargeRequest(amount: "25.50", email: "ama@example.com", phoneNumber: "+233244123456",\n'
        '    reference: reference, currency: "GHS", provider: "MTN", callbackUrl: nil)',
        ("reference",),
    ),
    "transaction": ('let transaction = try! transactionFromJson(json: "{}")', ()),
    "orders": (
        "struct Order: Sendable {\n"
        "    let reference: String\n"
        "    let amount: Amount\n"
        "    let currency: String\n"
        "}\n"
        "\n"
        "/// The merchant's order store.\n"
        "struct Orders: Sendable {\n"
        "    func find(_ reference: String) async throws -> Order? { nil }\n"
        "    func fulfilOnce(_ reference: String) async throws {}\n"
        "    func fulfilOnce(_ reference: String, _ transaction: Transaction) async throws {}\n"
        "}\n"
        "\n"
        "let orders = Orders()",
        (),
    ),
    "ledger": ('let ledger = try! Ledger.sqlite(path: "orders-ledger.db")', ()),
    "log": ("func log(_ message: String) { print(message) }", ()),
    "alert": ("func alert(_ message: String) { print(message) }", ()),
}

# The part of swift-log's API (1.x, as published) that README's log handler uses.
LOGGING_MODULE = """\
// Only the declarations of swift-log's public API (1.x) that bindings/swift/README.md's log
// handler uses, so that snippet builds here, where swift-log cannot be fetched. Nothing runs.
public struct Logger: Sendable {
    public enum Level: String, Sendable, CaseIterable, Comparable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    public struct Message: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, Sendable {
        public init(stringLiteral value: String) {}
    }

    public enum MetadataValue: Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
        case string(String)
        case stringConvertible(any CustomStringConvertible & Sendable)
        case dictionary(Metadata)
        case array([MetadataValue])

        public init(stringLiteral value: String) { self = .string(value) }
    }

    public typealias Metadata = [String: MetadataValue]

    public var logLevel: Level = .info
    public let label: String

    public init(label: String) { self.label = label }

    public func log(
        level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {}
}
"""

FENCE = re.compile(r"^```swift\n(.*?)^```", re.S | re.M)


def snippets(root: Path) -> list[tuple[str, int, str]]:
    found = []
    for name in READMES:
        text = (root / name).read_text()
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((name, line, match.group(1)))
    return found


def declares(code: str, name: str) -> bool:
    """Whether the snippet declares NAME at its top level (a member or a local does not count)."""
    keyword = r"(?:(?:public|final|private)\s+)*(?:let|var|func|struct|class|enum)"
    return re.search(rf"^{keyword}\s+{re.escape(name)}\b", code, re.M) is not None


def context_for(code: str) -> list[str]:
    wanted: list[str] = []

    def want(name: str) -> None:
        if name in wanted or declares(code, name):
            return
        for needed in CONTEXT[name][1]:
            want(needed)
        wanted.append(name)

    for name in CONTEXT:
        if re.search(rf"(?<![.\w]){re.escape(name)}\b", code):
            want(name)
    return wanted


def without_comments(manifest: str) -> str:
    """The manifest's code alone: no comments, no layout, no trailing commas."""
    code = "".join(re.sub(r"//.*$", "", line) for line in manifest.splitlines())
    return re.sub(r",([\])])", r"\1", re.sub(r"\s+", "", code))


def main(root: Path, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    sika = out / "sika-swift"
    shutil.copytree(
        root / "bindings/swift", sika, ignore=shutil.ignore_patterns(".build", ".generated", "Tests", "Examples")
    )
    package = out / "shop"
    fragments: set[str] = set()
    quick_start: str | None = None
    targets: list[tuple[str, str, list[str]]] = []
    for readme, line, code in snippets(root):
        where = f"{readme}:{line}"
        shown = re.match(r"// (tests/swiftpm-consumer/\S+\.swift)\n", code)
        if shown:
            if (root / shown.group(1)).read_text() != code:
                sys.exit(f"{where}: the snippet differs from {shown.group(1)}")
        elif code.startswith("// swift-tools-version"):
            consumer = (root / "tests/swiftpm-consumer/Package.swift").read_text()
            if without_comments(code) != without_comments(consumer):
                sys.exit(f"{where}: the manifest differs from tests/swiftpm-consumer/Package.swift")
        elif code.startswith("dependencies:"):
            fragments.add(code.strip())
        elif readme == "README.md" and quick_start is None:
            quick_start = code
        else:
            targets.append((f"{'Root' if readme == 'README.md' else 'Swift'}ReadmeLine{line}", code, context_for(code)))
    if len(fragments) != 1:
        sys.exit(f"the READMEs show {len(fragments)} different manifest fragments; they must show one")
    if quick_start is None:
        sys.exit("README.md shows no Swift quick start")
    fragment = fragments.pop()
    if not fragment.endswith("]"):
        sys.exit("the manifest fragment must end with its `targets` list")
    sika_product = '.product(name: "Sika", package: "sika-swift")'
    extra = "".join(
        f',\n    .executableTarget(name: "{name}", dependencies: [{sika_product}, "Logging"])' for name, _, _ in targets
    )
    extra += ',\n    .target(name: "Logging")'
    manifest = (
        "// swift-tools-version:6.0\n// Generated by scripts/lib/swift_readme_snippets.py (B110).\n"
        f'import PackageDescription\n\nlet package = Package(\n    name: "Shop",\n{fragment[:-1]}{extra}\n])\n'
    )
    package.mkdir(parents=True)
    (package / "Package.swift").write_text(manifest)
    write(package / "Sources/Shop/main.swift", quick_start)
    write(package / "Sources/Logging/Logging.swift", LOGGING_MODULE)
    for name, code, context in targets:
        write(package / f"Sources/{name}/main.swift", with_imports(code))
        if context:
            declarations = "\n\n".join(CONTEXT[item][0] for item in context)
            write(package / f"Sources/{name}/Context.swift", f"import Foundation\nimport Sika\n\n{declarations}\n")
    print(f"{len(targets) + 1} Swift snippets in {package}")


def with_imports(code: str) -> str:
    imports = [module for module in ("Foundation", "Sika") if not re.search(rf"^import {module}$", code, re.M)]
    return "".join(f"import {module}\n" for module in imports) + code


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
