//! Swift: the two clients are unavailable on iOS, tvOS, watchOS and visionOS (ADR 0027), so an
//! app's build fails at compile time saying why; macOS and Linux are untouched. UniFFI has no
//! attribute of its own for a generated class, and a hand-written file cannot add one to it.

use crate::patch::replace_exactly;

/// The platforms of client apps, as Swift's `@available` names them.
const APP_PLATFORMS: [&str; 4] = ["iOS", "tvOS", "watchOS", "visionOS"];

/// Why, as the compiler shows it (a Swift string literal's contents).
const MESSAGE: &str = "Sika is server-only: in an app the secret key can be unpacked by anyone who installs it. \
     Keep the key and Sika on your own server and let the app call that server; see README.md, section \\\"Where Sika runs\\\"";

/// The generated class declarations of the clients.
const CLIENTS: [&str; 2] = [
    "open class Client: ClientProtocol, @unchecked Sendable {\n",
    "open class BlockingClient: BlockingClientProtocol, @unchecked Sendable {\n",
];

pub fn patch(text: String) -> Result<String, String> {
    let attributes: String = APP_PLATFORMS
        .iter()
        .map(|platform| format!("@available({platform}, unavailable, message: \"{MESSAGE}\")\n"))
        .collect();
    CLIENTS.iter().try_fold(text, |text, class| {
        replace_exactly(&text, class, &format!("{attributes}{class}"), 1, "a client's class declaration")
    })
}
