// Idiom only: how a SikaError reads in Swift. The text itself comes from the Rust core.

// The generated enum carries the core's message as `description` (the exported Rust Display)
// but does not declare CustomStringConvertible. Declaring it makes "\(error)", print(error)
// and the generated LocalizedError.errorDescription (which is String(reflecting:)) all show
// that message instead of a dump of the case. If a future UniFFI declares the conformance
// itself, this line becomes a "redundant conformance" compile error: delete it then.
extension SikaError: CustomStringConvertible {}
