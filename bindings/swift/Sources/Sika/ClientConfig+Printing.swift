/// `dump(config)` shows the configuration as `description` prints it (the core's printing: the
/// key and the proxy as `[REDACTED]`, a `baseUrl`'s credentials as `[REDACTED]`), not each field
/// as it is: a `baseUrl` with credentials is refused when a client is made, but a configuration
/// may be dumped before (B81).
extension ClientConfig: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description])
    }
}
