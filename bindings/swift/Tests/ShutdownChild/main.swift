// The child process of ShutdownTests (B54): starts async calls that the sandbox answers late,
// waits until answers are coming in, then ends the process while calls are still in flight,
// so answers wake their tasks from the SDK's threads as the process exits.
//   ShutdownChild BASE_URL SECRET_KEY exit|return
// Prints one line of its own; ShutdownTests fails on anything else.
import Foundation
import Sika

/// Counts answered calls across tasks.
final class Answered: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, ["exit", "return"].contains(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: ShutdownChild BASE_URL SECRET_KEY exit|return\n".utf8))
    exit(2)
}
let client = try Client(config: ClientConfig(secretKey: SecretKey(key: arguments[2]), baseUrl: arguments[1], timeoutMs: 10_000))
let answered = Answered()
// Four calls that never get an answer, and a new call every 4 ms, each answered later.
for call in 0..<4 {
    Task.detached { _ = try? await client.verifyTransaction(reference: "HANG-\(call)") }
}
Task.detached {
    var call = 0
    while true {
        call += 1
        let reference = "LATE-\(call)"
        Task.detached {
            // A not-found answer is an answer: it wakes the task as a success would.
            _ = try? await client.verifyTransaction(reference: reference)
            answered.add()
        }
        try? await Task.sleep(nanoseconds: 4_000_000)
    }
}
let started = Date()
while answered.value == 0 && Date().timeIntervalSince(started) < 20 {
    try await Task.sleep(nanoseconds: 5_000_000)
}
try await Task.sleep(nanoseconds: 50_000_000)
// Written at once (no buffer left to flush at the exit).
FileHandle.standardOutput.write(Data("answers before the exit: \(answered.value > 0 ? "yes" : "no")\n".utf8))
if arguments[3] == "exit" {
    exit(0)
}
// "return": the end of the top-level code ends the process with the calls in flight.
