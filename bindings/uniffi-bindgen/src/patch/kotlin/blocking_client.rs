//! Kotlin: `BlockingClient.kt`, a file of its own written beside the generated one (ADR 0036).
//!
//! The core's `BlockingClient` waits inside Rust, so a JNA call into it pins a virtual thread's
//! carrier and ignores `Thread.interrupt()`. Kotlin's blocking client is therefore not that
//! object (`core/uniffi.toml` excludes it from the Kotlin bindings) but a class over `Client`:
//! each method runs the async client's `suspend` function and parks the calling thread until
//! it ends (`bindings/kotlin/src/main/kotlin/dev/sika/Parking.kt`). Its methods are derived from
//! the generated `ClientInterface`, so a new operation cannot lack its blocking form.

/// The file's name, beside `sika_ffi.kt`.
pub const FILE_NAME: &str = "BlockingClient.kt";

use super::completable_futures::SuspendMethod;

/// One method of `ClientInterface`: its parsed line, whether it suspends, what it throws.
struct Operation<'a> {
    method: SuspendMethod<'a>,
    suspends: bool,
    throws: Option<&'a str>,
}

/// `BlockingClient.kt` for the generated (unpatched or patched) `sika_ffi.kt` in `text`.
pub fn generate(text: &str) -> Result<String, String> {
    let header = "\npublic interface ClientInterface {\n";
    let start = text.find(header).ok_or("no `public interface ClientInterface`")? + header.len();
    let body = &text[start..start + text[start..].find("\n}\n").ok_or("an unterminated `ClientInterface`")?];
    for (shape, what) in [
        ("\nopen class Client: Disposable, AutoCloseable, ClientInterface\n", "`open class Client`"),
        ("    constructor(`config`: ClientConfig) :", "the constructor `Client(config)`"),
        (" fun `fromEnv`(): Client {\n", "the factory `Client.fromEnv()`"),
    ] {
        if !text.contains(shape) {
            return Err(format!("{what} is not in the generated code"));
        }
    }
    let mut operations = Vec::new();
    for line in body.lines() {
        let (declaration, suspends) = match (line.strip_prefix("    suspend fun "), line.strip_prefix("    fun ")) {
            (Some(declaration), _) => (declaration, true),
            (None, Some(declaration)) => (declaration, false),
            (None, None) => continue,
        };
        let method = SuspendMethod::parse(declaration)?;
        let implementation = format!("override {}fun `{}`(", if suspends { "suspend " } else { "" }, method.name);
        let at = text.find(&implementation).ok_or_else(|| format!("`Client` does not implement `{}`", method.name))?;
        // The annotations between the previous member's end and this one.
        let annotations = &text[text[..at].rfind("\n    }").unwrap_or(0)..at];
        let throws = match annotations.rfind("@Throws(") {
            Some(index) => {
                let error = annotations[index + "@Throws(".len()..].split("::class)").next().unwrap_or_default();
                if error.is_empty() || !error.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    return Err(format!("`{}` throws an unexpected error type `{error}`", method.name));
                }
                Some(error)
            }
            None => None,
        };
        operations.push(Operation { method, suspends, throws });
    }
    if !operations.iter().any(|o| o.suspends) {
        return Err("no `suspend fun` in `ClientInterface`".to_owned());
    }
    let members: String = operations.iter().map(Operation::member).collect();
    Ok(format!("{HEAD}{members}{TAIL}"))
}

impl Operation<'_> {
    fn member(&self) -> String {
        let m = &self.method;
        let arguments: Vec<String> = m.names.iter().map(|n| format!("`{n}`")).collect();
        let call = format!("client.`{}`({})", m.name, arguments.join(", "));
        // A method that returns another `Client` (a view such as `withOptions`) returns the
        // blocking client over it.
        let returns_client = m.result == "Client";
        let result = if returns_client { "BlockingClient" } else { m.result };
        let body = match (self.suspends, returns_client) {
            (true, _) => format!("parkUntilDone {{ {call} }}"),
            (false, true) => format!("BlockingClient({call})"),
            (false, false) => call,
        };
        let throws = self.throws.map(|e| format!("    @Throws({e}::class)\n")).unwrap_or_default();
        let overloads = if m.parameters.contains(" = ") { "    @JvmOverloads\n" } else { "" };
        let doc = if self.suspends {
            format!("[Client.{}], waiting for its result: the calling thread parks.", m.name)
        } else {
            format!("[Client.{}].", m.name)
        };
        format!(
            "    /** {doc} */\n{throws}{overloads}    fun `{name}`({parameters}): {result} =\n        {body}\n\n",
            name = m.name,
            parameters = m.parameters,
        )
    }
}

const HEAD: &str = "\
// Written by Sika's uniffi-bindgen from the generated `ClientInterface`
// (bindings/uniffi-bindgen/src/patch/kotlin/blocking_client.rs, ADR 0036). Do not edit.
@file:Suppress(\"RemoveRedundantBackticks\", \"RedundantVisibilityModifier\")

package dev.sika

/**
 * The blocking client: [Client]'s operations as plain calls, for threads, servlet containers
 * and Java. Share one per process; close it when done ([close], or `use {}` / try-with-resources).
 *
 * Each call runs [Client]'s call and parks the calling thread until it ends (ADR 0036):
 * - a virtual thread unmounts from its carrier while it waits, as with `CompletableFuture.join()`;
 * - [Thread.interrupt] ends the call at once with [SikaException.Cancelled], sets the thread's
 *   interrupt flag again, and cancels the call in Rust: its connection is closed and nothing
 *   more is sent. A thread already interrupted when it calls gets the same, and nothing is sent.
 */
public class BlockingClient private constructor(private val client: Client) : AutoCloseable {
    /** Creates a client; throws `Configuration` on a bad setting, `InvalidInput` on a negative one. */
    @Throws(SikaException::class)
    public constructor(config: ClientConfig) : this(Client(config))

    public companion object {
        /** Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`. */
        @JvmStatic
        @Throws(SikaException::class)
        public fun fromEnv(): BlockingClient = BlockingClient(Client.fromEnv())
    }

";

const TAIL: &str = "    /** Frees the client: its connections close once the calls in flight have ended. */
    override fun close(): Unit = client.close()
}
";

#[cfg(test)]
mod tests {
    use super::generate;

    const GENERATED: &str = "\npublic interface ClientInterface {\n    \n    /**\n     * Verifies.\n     */\n    suspend fun `verify`(`reference`: kotlin.String): Transaction\n    \n    suspend fun `list`(`country`: kotlin.String? = null): List<Bank>\n    \n    fun `withOptions`(`timeoutMs`: kotlin.Long? = null): Client\n    \n    fun `shutdown`()\n    \n    companion object\n}\n\nopen class Client: Disposable, AutoCloseable, ClientInterface\n{\n    constructor(`config`: ClientConfig) :\n    @Throws(SikaException::class)\n    @Suppress(\"ASSIGNED_BUT_NEVER_ACCESSED_VARIABLE\")\n    override suspend fun `verify`(`reference`: kotlin.String) : Transaction {\n    }\n\n    @Throws(SikaException::class)\n    @Suppress(\"ASSIGNED_BUT_NEVER_ACCESSED_VARIABLE\")\n    override suspend fun `list`(`country`: kotlin.String?) : List<Bank> {\n    }\n    @Throws(SikaException::class)override fun `withOptions`(`timeoutMs`: kotlin.Long?): Client {\n    }\n    override fun `shutdown`()\n        = callWithHandle {\n    }\n    companion object {\n        @Throws(SikaException::class) fun `fromEnv`(): Client {\n";

    #[test]
    fn b176_blocking_client_every_operation_parks_on_the_async_client() {
        let file = generate(GENERATED).unwrap();
        assert!(file.contains("    @Throws(SikaException::class)\n    fun `verify`(`reference`: kotlin.String): Transaction =\n        parkUntilDone { client.`verify`(`reference`) }\n"), "{file}");
        assert!(file.contains("    @Throws(SikaException::class)\n    @JvmOverloads\n    fun `list`(`country`: kotlin.String? = null): List<Bank> =\n        parkUntilDone { client.`list`(`country`) }\n"), "{file}");
        // A view of the client is a blocking client over the view.
        assert!(file.contains("    @Throws(SikaException::class)\n    @JvmOverloads\n    fun `withOptions`(`timeoutMs`: kotlin.Long? = null): BlockingClient =\n        BlockingClient(client.`withOptions`(`timeoutMs`))\n"), "{file}");
        // A plain method is a plain call, throwing nothing.
        assert!(file.contains("    fun `shutdown`(): Unit =\n        client.`shutdown`()\n"), "{file}");
        assert!(file.starts_with("// Written by Sika's uniffi-bindgen"));
    }

    #[test]
    fn b176_blocking_client_the_shape_is_checked() {
        assert!(generate(&GENERATED.replace("interface ClientInterface", "interface AsyncClient")).is_err());
        assert!(generate(&GENERATED.replace("suspend fun", "fun")).is_err());
        assert!(generate(&GENERATED.replace("fun `fromEnv`()", "fun `fromEnvironment`()")).is_err());
        assert!(generate(&GENERATED.replace("@Throws(SikaException::class)", "@Throws(Sika<X>::class)")).is_err());
        assert!(generate(&GENERATED.replace("override fun `shutdown`", "override fun `stop`")).is_err());
    }
}
