// The worker process of KilledWorkerTests (B220): settles the order through a SQLite ledger and
// ships it in a `fulfil` block that never ends, so the test can SIGKILL it inside the block (no
// `defer`, no release: as the OOM killer or `kill -9` would end it).
//   KilledWorkerChild LEDGER_PATH BASE_URL SECRET_KEY REFERENCE LEASE_MS
// Prints SHIPPING once it holds the claim, or why it does not.
import Foundation
import Sika

let arguments = CommandLine.arguments
guard arguments.count == 6, let leaseMs = Int64(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: KilledWorkerChild LEDGER_PATH BASE_URL SECRET_KEY REFERENCE LEASE_MS\n".utf8))
    exit(2)
}
let ledger = try Ledger.sqlite(path: arguments[1], options: LedgerOptions(leaseMs: leaseMs))
let client = try Client(config: ClientConfig(secretKey: SecretKey(key: arguments[3]), baseUrl: arguments[2], timeoutMs: 10_000))
let decision = try await ledger.settle(client: client, reference: arguments[4])
guard case .fulfil(let claim, _) = decision else {
    FileHandle.standardOutput.write(Data("NOT OFFERED: \(decision)\n".utf8))
    exit(1)
}
try await ledger.fulfil(claim) { _ in
    // Written at once: the process is killed with nothing flushed.
    FileHandle.standardOutput.write(Data("SHIPPING\n".utf8))
    while true {  // the shipment that never ends
        try await Task.sleep(nanoseconds: 1_000_000_000)
    }
}
