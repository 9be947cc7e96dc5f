"""B42: the installed package is typed for checkers. mypy --strict and pyright (strict) accept
the typed example app (every public call, `match` and `except` included) and reject exactly the
marked lines of tests/typing_rejected_calls.py; the generated declarations
(`sika/_ffi/sika_ffi_types.py`, ADR 0016) say what the runtime classes do; and the example
app, run against the sandbox, gives the answers its types promise (positional `match`
patterns included)."""

from __future__ import annotations

import ast
import enum
import importlib
import importlib.util
import inspect
import io
import json
import os
import re
import subprocess
import sys
import tokenize
import typing
from decimal import Decimal
from pathlib import Path

import pytest

import sika
from sika._ffi import sika_ffi as generated
from sika._ffi import sika_ffi_types as declared
from support import FIXTURES_DIR, KEY, transaction_object

PYTHON_DIR = Path(__file__).resolve().parents[1]
APP = PYTHON_DIR / "examples" / "typed_merchant_app.py"
REJECTED = Path(__file__).resolve().parent / "typing_rejected_calls.py"
BIN = Path(sys.executable).parent
# A line the checkers must reject: code, then this comment.
REJECTED_MARK = re.compile(r"^\s*\S.*  # rejected: \S")


def installed_package() -> Path:
    """The wheel's `sika` in the venv (never the source tree, which has no bindings)."""
    package = Path(sika.__file__).resolve().parent
    assert "site-packages" in package.parts, package
    return package


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict[str, dict[str, typing.Any]]:
    """Runs each checker once over copies of both files, in a directory of their own, so
    `import sika` can only find the installed package: checker -> file -> lines with errors."""
    installed_package()
    work = tmp_path_factory.mktemp("typing")
    files = [APP.name, REJECTED.name]
    for source in [APP, REJECTED]:
        (work / source.name).write_text(source.read_text())
    (work / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict"}))
    env = {**os.environ, "CI": "true", "MYPYPATH": ""}
    env.pop("PYTHONPATH", None)

    mypy = subprocess.run(
        [BIN / "mypy", "--strict", "--no-error-summary", "--cache-dir", work / ".mypy_cache", *files],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert mypy.returncode in (0, 1), mypy.stdout + mypy.stderr
    mypy_errors: dict[str, set[int]] = {name: set() for name in files}
    for line in mypy.stdout.splitlines():
        found = re.match(r"^(.+?):(\d+): error: ", line)
        if found:
            mypy_errors[found.group(1)].add(int(found.group(2)))

    pyright = subprocess.run(
        [BIN / "pyright", "--outputjson", "--pythonpath", sys.executable, *files],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    report = json.loads(pyright.stdout)
    assert report["summary"]["filesAnalyzed"] == len(files), pyright.stdout
    pyright_errors: dict[str, set[int]] = {name: set() for name in files}
    for diagnostic in report["generalDiagnostics"]:
        if diagnostic["severity"] == "error":
            pyright_errors[Path(diagnostic["file"]).name].add(diagnostic["range"]["start"]["line"] + 1)
    return {"mypy": mypy_errors, "pyright": pyright_errors, "output": {"mypy": mypy.stdout, "pyright": pyright.stdout}}


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_b42_the_typed_app_passes_the_checker_in_strict_mode(checked, checker):
    source = APP.read_text()
    # Nothing silenced, nothing untyped: the package's own types carry the app.
    comments = [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type == tokenize.COMMENT]
    assert not [comment for comment in comments if "ignore" in comment]
    names = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Attribute)}
    assert "Any" not in names and "cast" not in names
    assert checked[checker][APP.name] == set(), checked["output"][checker]


def test_b42_the_typed_app_makes_every_public_call():
    tree = ast.parse(APP.read_text())
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    functions = {name for name in sika.__all__ if inspect.isfunction(getattr(sika, name))}
    assert functions and functions - used == set()
    # Each client's every method, called on a parameter annotated as that client.
    called: dict[str, set[str]] = {"Client": set(), "BlockingClient": set()}
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        clients = {
            argument.arg: ast.unparse(argument.annotation).removeprefix("sika.")
            for argument in function.args.args
            if argument.annotation is not None and ast.unparse(argument.annotation) in ("sika.Client", "sika.BlockingClient")
        }
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in clients:
                called[clients[node.value.id]].add(node.attr)
    for name, methods in called.items():
        runtime = getattr(sika, name)
        public = {member for member, value in vars(runtime).items() if not member.startswith("_") and inspect.isfunction(value)}
        assert public and public - methods == set(), name
        assert f"{name}.from_env" in APP.read_text()
    assert {"ClientConfig", "AwaitOptions", "Cancellation", "cancel", "is_cancelled"} <= used


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_b42_the_checker_rejects_exactly_the_marked_calls(checked, checker):
    lines = REJECTED.read_text().splitlines()
    marked = {number for number, line in enumerate(lines, start=1) if REJECTED_MARK.match(line)}
    assert len(marked) == 10
    assert checked[checker][REJECTED.name] == marked, checked["output"][checker]


def test_b42_the_wheel_ships_py_typed_and_the_declarations():
    package = installed_package()
    assert (package / "py.typed").is_file()
    assert Path(declared.__file__).resolve() == package / "_ffi" / "sika_ffi_types.py"
    # At run time the declarations module is the generated one's names, nothing of its own.
    assert all(getattr(declared, name) is getattr(generated, name) for name in declared.__all__)
    assert set(declared.__all__) == {name for name in generated.__all__ if not name.endswith("Protocol")}
    # The package's names are those, but the log bridge's plumbing; `enable_logging` is
    # Python's own (sika._logging).
    bridge = {"LogSink", "LogRecord", "set_log_sink", "set_log_sink_level", "close_log_sink", "log_level_from_env"}
    host_report = {"report_host_runtime", "check_host_runtime"}  # the server-only check's plumbing (ADR 0027)
    tracer = {"Tracer", "set_tracer", "CallStart", "TracedCall", "CallEnd", "AttemptSpan", "EndedCall", "trace_next_call", "take_ended_call"}  # sika._tracing's (ADR 0058)
    assert sika.__all__ == [name for name in declared.__all__ if name not in bridge | host_report | tracer]
    assert sika.enable_logging is sika._logging.enable_logging
    assert all(getattr(sika, name) is getattr(generated, name) for name in sika.__all__ if name != "enable_logging")


# The runtime members that typing relies on besides public names: protocols a class may add.
# (`__hash__`: a class that defines `__eq__` is unhashable to checkers unless it declares one.)
PROTOCOL_DUNDERS = {"__enter__", "__exit__", "__aenter__", "__aexit__", "__iter__", "__len__", "__getitem__", "__hash__"}


def declarations_block() -> list[ast.stmt]:
    tree = ast.parse(Path(declared.__file__).read_text())
    (block,) = [node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "typing.TYPE_CHECKING"]
    return block.body


def normalized(annotation: str) -> str:
    """A generated annotation as the declarations write it: an argument with a default is
    `typing.Union[object, T] = _DEFAULT` in the generated code, `T = ...` in the declarations."""
    found = re.fullmatch(r"typing\.Union\[object, (.*)\]", annotation)
    return found.group(1) if found else annotation


def variant_unions() -> dict[str, str]:
    """`Enum_Variants: TypeAlias = typing.Union[Enum_A, ...]` of the declarations: what the SDK
    returns of an enum with data is declared as the union of its variants (B254), which the
    generated code names by the enum."""
    unions = {}
    for node in declarations_block():
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.annotation) == "TypeAlias":
            alias = ast.unparse(node.target)
            assert alias.endswith("_Variants"), alias
            unions[alias] = alias.removesuffix("_Variants")
    return unions


def as_generated(annotation: str) -> str:
    """A declared annotation with each union of variants named by its enum, as generated."""
    unions = variant_unions()
    return re.sub(r"\b\w+_Variants\b", lambda found: unions[found.group()], annotation)


def parameters_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str, bool, str]]:
    """(name, kind, has a default, annotation) of each parameter, as `inspect` names the kinds,
    and the return annotation last."""
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    defaults = [False] * (len(positional) - len(arguments.defaults)) + [True] * len(arguments.defaults)
    kinds = [("POSITIONAL_ONLY" if argument in arguments.posonlyargs else "POSITIONAL_OR_KEYWORD") for argument in positional]
    found = list(zip(positional, kinds, defaults))
    if arguments.vararg:
        found.append((arguments.vararg, "VAR_POSITIONAL", False))
    found.extend((argument, "KEYWORD_ONLY", default is not None) for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults))
    if arguments.kwarg:
        found.append((arguments.kwarg, "VAR_KEYWORD", False))
    annotation = lambda node: "" if node is None else ast.unparse(node)  # noqa: E731
    returns = ("return", "", False, annotation(function.returns))
    return [(argument.arg, kind, default, annotation(argument.annotation)) for argument, kind, default in found] + [returns]


def runtime_parameters(function, declared: list[tuple[str, str, bool, str]]) -> list[tuple[str, str, bool, str]]:
    """The same of a runtime function; where it has no annotation (some generated methods have
    none), the declared one stands (compare with `generated_parameters` of the declared)."""
    signature = inspect.signature(function)
    found = [
        (parameter.name, parameter.kind.name, parameter.default is not inspect.Parameter.empty, parameter.annotation)
        for parameter in signature.parameters.values()
    ]
    found.append(("return", "", False, signature.return_annotation))
    return [
        (name, kind, default, declared_one[3] if annotation is inspect.Parameter.empty else normalized(annotation))
        for (name, kind, default, annotation), declared_one in zip(found, declared + [("", "", False, "")] * len(found))
    ]


def generated_parameters(parameters: list[tuple[str, str, bool, str]]) -> list[tuple[str, str, bool, str]]:
    """Declared parameters with their annotations as the generated code writes them."""
    return [(name, kind, default, as_generated(annotation)) for name, kind, default, annotation in parameters]


def resolve(path: str):
    value = generated
    for part in path.split("."):
        value = getattr(value, part)
    return value


def test_b42_every_declaration_is_what_the_runtime_has():
    block = declarations_block()
    classes = {node.name: node for node in block if isinstance(node, ast.ClassDef)}
    # `Enum.VARIANT: TypeAlias = "Enum_VARIANT"`: the runtime path of each variant's class.
    paths = {name: name for name in classes}
    for node in classes.values():
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and ast.unparse(statement.annotation) == "TypeAlias":
                paths[statement.value.value] = f"{node.name}.{statement.target.id}"

    def declared_members(name: str) -> set[str]:
        """Every name a class declares, its declared bases' included."""
        members = set()
        for statement in classes[name].body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                members.add(statement.name)
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                members.add(statement.target.id)
            elif isinstance(statement, ast.Assign):
                members.update(target.id for target in statement.targets if isinstance(target, ast.Name))
        for base in classes[name].bases:
            if ast.unparse(base) in classes:
                members |= declared_members(ast.unparse(base))
        return members

    def declared_bases(name: str) -> list[type]:
        """The classes outside the declarations that a declared class derives from."""
        bases = []
        for base in classes[name].bases:
            base_name = ast.unparse(base)
            if base_name in classes:
                bases += declared_bases(base_name)
            else:
                bases.append(eval(base_name, {"enum": enum, "typing": typing}))
        return bases

    checked = 0
    for name, node in classes.items():
        runtime = resolve(paths[name])
        assert isinstance(runtime, type), paths[name]
        for base in node.bases:
            base_name = ast.unparse(base)
            runtime_base = resolve(paths[base_name]) if base_name in paths else eval(base_name, {"enum": enum, "typing": typing})
            assert issubclass(runtime, runtime_base), f"{paths[name]} is not a {base_name}"
        # And the other way: a builtin the runtime class is (`str`, `Exception`) is declared.
        for builtin in (owner for owner in runtime.__mro__ if owner.__module__ == "builtins" and owner is not object):
            assert any(issubclass(base, builtin) for base in declared_bases(name)), f"{paths[name]} is a {builtin}"
        match_args = ()
        for statement in node.body:
            if isinstance(statement, ast.Assign) and statement.targets[0].id == "__match_args__":
                match_args = ast.literal_eval(statement.value)
            elif isinstance(statement, ast.Assign) and issubclass(runtime, enum.Enum):
                member = runtime[statement.targets[0].id]
                assert member.value == ast.literal_eval(statement.value), f"{paths[name]}.{member.name}"
            elif isinstance(statement, ast.FunctionDef) and [ast.unparse(d) for d in statement.decorator_list] == ["property"]:
                # A decision's `is_*` (ADR 0042): a property at run time too.
                assert isinstance(inspect.getattr_static(runtime, statement.name), property), f"{paths[name]}.{statement.name}"
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                member = inspect.getattr_static(runtime, statement.name)
                assert callable(getattr(runtime, statement.name)), f"{paths[name]}.{statement.name}"
                function = member.__func__ if isinstance(member, classmethod) else member
                if inspect.isfunction(function) and function.__module__ == generated.__name__:
                    expected = generated_parameters(parameters_of(statement))
                    assert runtime_parameters(function, expected) == expected, f"{paths[name]}.{statement.name}"
                    assert inspect.iscoroutinefunction(function) == isinstance(statement, ast.AsyncFunctionDef)
                    checked += 1
            elif isinstance(statement, ast.AnnAssign) and ast.unparse(statement.annotation) != "TypeAlias":
                # A field: the generated `__init__` takes it (and sets it), of the same type; one
                # declared on an enum with data is every variant's (`PaymentCheck.transaction`).
                field = statement.target.id
                variants = [paths[alias] for alias, path in paths.items() if path.startswith(f"{paths[name]}.")]
                for owner in [resolve(path) for path in variants] or [runtime]:
                    parameter = inspect.signature(owner.__init__).parameters[field]
                    if parameter.annotation is not inspect.Parameter.empty:
                        assert parameter.annotation == as_generated(ast.unparse(statement.annotation)), f"{paths[name]}.{field}"
        # Positional patterns: what checkers allow is what the runtime class takes.
        assert tuple(getattr(runtime, "__match_args__", ())) == match_args, paths[name]
        if issubclass(runtime, enum.Enum):
            assert {member.name for member in runtime} <= declared_members(name), paths[name]
        # What the generated code and the patches add is declared, or checkers would reject it.
        for owner in runtime.__mro__:
            if owner.__module__ != generated.__name__:
                continue
            for member_name, member in vars(owner).items():
                public = not member_name.startswith("_") or member_name in PROTOCOL_DUNDERS
                if public and callable(member) or isinstance(member, (classmethod, staticmethod)):
                    if public and not isinstance(member, type):
                        assert member_name in declared_members(name), f"{paths[name]}.{member_name} is not declared"
    functions = [node for node in block if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for node in functions:
        expected = generated_parameters(parameters_of(node))
        assert runtime_parameters(getattr(generated, node.name), expected) == expected, node.name
    aliases = [node for node in block if isinstance(node, ast.Assign)]
    for node in aliases:
        module, attribute = ast.unparse(node.value).split(".")
        assert getattr(generated, node.targets[0].id) is getattr(importlib.import_module(module), attribute)
    assert {node.name for node in functions} | set(paths) >= set(declared.__all__)
    assert checked > 100 and len(aliases) == 2


def test_b42_enum_variants_take_positional_patterns_at_run_time():
    transaction = sika.decode_transaction_response(200, (FIXTURES_DIR / "responses" / "verify_successful.json").read_bytes())
    match sika.PaymentCheck.MISMATCH(transaction, "amount", "100.11", "100.10"):
        case sika.PaymentCheck.MISMATCH(paid, field, expected, actual):
            assert (paid, field, expected, actual) == (transaction, "amount", "100.11", "100.10")
        case other:
            pytest.fail(f"no match: {other}")
    match sika.TransactionStatus.UNKNOWN(value="success"):
        case sika.TransactionStatus.UNKNOWN(value):
            assert value == "success"
        case other:
            pytest.fail(f"no match: {other}")
    # Every variant with fields takes them in order; so does a record (a dataclass, ADR 0015).
    assert sika.WebhookDecision.INVESTIGATE.__match_args__ == ("transaction", "reason")
    match transaction:
        case sika.Transaction(_, domain, amount, currency):
            assert (domain, amount, currency) == ("test", Decimal("100.10"), "GHS")
        case other:
            pytest.fail(f"no match: {other}")


def load_app():
    spec = importlib.util.spec_from_file_location("typed_merchant_app", APP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_b42_the_typed_app_runs_against_the_sandbox(sandbox, monkeypatch, capsys):
    app = load_app()
    client, blocking = app.clients(KEY, sandbox.url)

    paid = await app.checkout(client, "TYPED-1", "024 412 0000", Decimal("25.50"))
    assert paid == "HTTP 200 Charge initiated; paid: fulfil the order; confirmed: ship 25.50 GHS (" + (
        str((await client.verify_transaction("TYPED-1")).gateway_ref) + ")"
    )
    assert await app.checkout(client, "TYPED-1", "024 412 0000", Decimal("25.50")) == (
        "charge refused with HTTP 409: Duplicate transaction reference"
    )
    assert app.checkout_blocking(blocking, "TYPED-2", "024 412 1111", Decimal("10")).startswith(
        "HTTP 200; failed (final): tell the customer, allow a retry; not paid (failed)"
    )

    for reference, status in [("PAID", "successful"), ("WORD", "success"), ("PEND", "pending"), ("FAIL", "failed")]:
        sandbox.seed_transaction(transaction_object(reference, status, "100.10"))
    order = sika.ExpectedPayment(amount=Decimal("100.10"), currency="GHS")
    checks = {
        reference: app.what_the_check_says(await client.confirm_payment(reference, order))
        for reference in ["PAID", "WORD", "PEND", "FAIL"]
    }
    assert checks["PAID"].startswith("confirmed: ship 100.10 GHS")
    assert checks["WORD"] == "not paid (success): investigate"
    assert checks["PEND"] == "not yet: pending (not final yet): wait for the webhook or verify again"
    assert checks["FAIL"] == "not paid (failed): tell the customer, allow a retry"
    short = await client.confirm_payment("PAID", sika.ExpectedPayment(amount=Decimal("100.11"), currency="GHS"))
    assert app.what_the_check_says(short) == "mismatch on amount: expected 100.11, got 100.10"

    assert (await app.verify(client, "WORD")).endswith("`success` is not `successful`: investigate, never fulfil")
    assert app.stored("success", "mobile_money", "nuban") == (
        "`success` is not `successful`: investigate, never fulfil; mobile money; NUBAN"
    )
    assert app.stored("refunded", "ussd", "iban") == (
        "unknown status 'refunded': investigate, never fulfil; ussd; iban"
    )
    assert app.archived(await client.verify_transaction("PAID")).startswith('test: 100.10 GHS -> {"amount": "100.10"')
    assert await app.verify(client, "NEVER-CHARGED") == "NEVER-CHARGED: no such transaction"
    assert await app.verify(client, "..") == "..: not sent, bad reference"
    assert app.verify_blocking(blocking, "PEND") == "pending (not final yet): wait for the webhook or verify again"
    assert re.fullmatch(  # the id to quote to support follows (ADR 0053)
        r"NEVER-CHARGED: transaction not found \(request id req_\w+\)", app.verify_blocking(blocking, "NEVER-CHARGED")
    )
    assert await app.give_up(client, "PEND") == "stopped waiting for PEND"

    body = lambda reference: b'{"event":"charge.success","data":{"reference":"' + reference.encode() + b'"}}'  # noqa: E731
    orders = {"PAID": order, "PEND": order}
    assert await app.webhook(client, body("PAID"), orders) == (200, "fulfil PAID (acknowledged)")
    assert (await app.webhook(client, body("PEND"), orders))[0] == 503
    assert await app.webhook(client, body("WORD"), orders) == (400, "charge.success about an unknown order")
    assert await app.webhook(client, b"{", orders) == (400, "not a webhook")
    word = app.webhook_blocking(blocking, body("WORD"), order)
    assert word[0] == 200 and word[1].startswith("investigate WORD: ")

    banks = await app.banks(client, blocking, "NG")
    assert banks[0] == "Access Bank (044, NUBAN)"

    responses = FIXTURES_DIR / "responses"
    bodies = [(responses / name).read_bytes() for name in ["providers_gh.json", "banks_unknown_type.json", "verify_unknown_status.json", "charge_accepted.json"]]  # fmt: skip
    countries = [f"{code} {name} {currency} mobile money: {code != 'NG'}" for code, name, currency in [
        ("GH", "Ghana", "GHS"), ("KE", "Kenya", "KES"), ("UG", "Uganda", "UGX"), ("TZ", "Tanzania", "TZS"), ("NG", "Nigeria", "NGN"),
    ]]  # fmt: skip
    assert app.offline(*bodies) == [
        *countries,
        "+233244123456",
        *["mobile_money"] * 3,
        "account number",
        "virtual_account",  # BankAccountType.OTHER(value), a positional pattern
        "unknown status 'processing': investigate, never fulfil",
        f"200 True True {len(bodies[3].decode())}",
    ]

    assert app.stop(client, blocking, "PAID") == "stopped: the client has been shut down"
    with pytest.raises(sika.SikaError.Configuration):
        await client.verify_transaction("PAID")

    monkeypatch.setenv("SIKA_SECRET_KEY", KEY)
    monkeypatch.setenv("SIKA_BASE_URL", sandbox.url)
    assert await app.main() == 0
    printed = capsys.readouterr().out.splitlines()
    order = printed[4].removeprefix("stopped waiting for ")
    assert order.startswith("ORDER-")
    assert printed[0].startswith("HTTP 200 Charge initiated; paid: fulfil the order; confirmed: ship 25.50 GHS (")
    assert printed[1].startswith("HTTP 200; paid: fulfil the order; confirmed: ship 10.00 GHS (")
    assert printed[2].startswith(f"{order}: 25.50 GHS by mobile money, ") and printed[2].endswith(": paid: fulfil the order")
    assert printed[3].startswith("test: 25.50 GHS -> ")
    assert re.fullmatch(r"ORDER-NEVER-CHARGED: transaction not found \(request id req_\w+\)", printed[5]), printed[5]
    assert printed[6:8] == [
        f"(200, 'fulfil {order} (acknowledged)')",
        f"(200, 'fulfil {order} (acknowledged)')",
    ]
    assert printed[8:] == banks


# ---- B254: a `match` over every variant of a returned decision is exhaustive for checkers -----

EXHAUSTIVE = '''
from __future__ import annotations

import sika


def ledger(ledger: sika.BlockingLedger, client: sika.BlockingClient, body: bytes) -> str:
    match ledger.handle_webhook(client, body):
        case sika.LedgerDecision.FULFIL(claim):
            return claim.reference
        case sika.LedgerDecision.ALREADY_FULFILLED(reference):
            return reference
        case sika.LedgerDecision.IN_PROGRESS(reference):
            return reference
        case sika.LedgerDecision.DECIDED(decision):
            return str(decision.http_status())


def reconciled(report: sika.ReconcileReport) -> list[int]:
    return [payment.decision.http_status() for payment in report.checked]


def webhook(client: sika.BlockingClient, body: bytes, order: sika.ExpectedPayment) -> int:
    decision = client.handle_webhook(body, order)
    match decision:
        case sika.WebhookDecision.FULFIL() | sika.WebhookDecision.INVESTIGATE():
            return 200
        case sika.WebhookDecision.IGNORE():
            return 200
        case sika.WebhookDecision.RETRY_LATER() | sika.WebhookDecision.REJECT():
            return decision.http_status()


def status(client: sika.BlockingClient) -> bool:
    match client.verify_transaction("ORDER-1").status:
        case sika.TransactionStatus.SUCCESSFUL():
            return True
        case (
            sika.TransactionStatus.PENDING()
            | sika.TransactionStatus.FAILED()
            | sika.TransactionStatus.ABANDONED()
            | sika.TransactionStatus.REVERSED()
            | sika.TransactionStatus.UNKNOWN()
        ):
            return False
'''

# The same with a variant left out: both checkers must see the path without a return.
MISSING_ONE = EXHAUSTIVE.split("\n\n\ndef reconciled")[0].replace(
    "        case sika.LedgerDecision.IN_PROGRESS(reference):\n            return reference\n", ""
)


def test_b254_a_match_over_every_returned_variant_is_exhaustive_and_one_short_is_not(tmp_path):
    installed_package()
    (tmp_path / "exhaustive.py").write_text(EXHAUSTIVE)
    (tmp_path / "missing_one.py").write_text(MISSING_ONE)
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict"}))
    env = {**os.environ, "CI": "true", "MYPYPATH": ""}
    env.pop("PYTHONPATH", None)
    files = ["exhaustive.py", "missing_one.py"]
    pyright = subprocess.run(
        [BIN / "pyright", "--outputjson", "--pythonpath", sys.executable, *files],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    report = json.loads(pyright.stdout)
    errors = [(Path(d["file"]).name, d.get("rule"), d["message"]) for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert [error for error in errors if error[0] == "exhaustive.py"] == [], pyright.stdout
    missing = [error for error in errors if error[0] == "missing_one.py"]
    assert any(rule == "reportMatchNotExhaustive" and "LedgerDecision_IN_PROGRESS" in message for _, rule, message in missing), missing
    mypy = subprocess.run(
        [BIN / "mypy", "--strict", "--no-error-summary", "--cache-dir", tmp_path / ".mypy_cache", *files],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = mypy.stdout.splitlines()
    assert not [line for line in lines if line.startswith("exhaustive.py")], mypy.stdout
    assert [line for line in lines if line.startswith("missing_one.py") and "Missing return statement" in line], mypy.stdout
