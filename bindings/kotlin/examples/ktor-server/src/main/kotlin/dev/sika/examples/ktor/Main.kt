// The shop as a process, its settings from the environment: SIKA_BASE_URL and SIKA_SECRET_KEY
// (the sandbox's for a try, the service's in production), SIKA_LEDGER_URL (a PostgreSQL URL for
// the ledger shared by several servers; without it, the SQLite file shop-ledger.db) and PORT
// (default 8080). For example:
//   mvn -q compile dependency:build-classpath -DincludeScope=runtime -Dmdep.outputFile=target/classpath
//   java -cp "target/classes:$(cat target/classpath)" dev.sika.examples.ktor.MainKt
package dev.sika.examples.ktor

import dev.sika.Client
import dev.sika.Ledger
import dev.sika.LedgerOptions
import dev.sika.SecretUrl
import io.ktor.server.engine.embeddedServer
import io.ktor.server.cio.CIO

fun main() {
    val port = System.getenv("PORT")?.toInt() ?: 8080
    // Client.fromEnv() throws SikaException.Configuration (no request sent) when a setting is
    // missing or wrong: the server then does not start at all.
    embeddedServer(CIO, port = port, host = "127.0.0.1") {
        // Opened once, with the server; its tables are created or migrated here.
        val ledger = System.getenv("SIKA_LEDGER_URL")?.let { Ledger.postgres(SecretUrl(it), LedgerOptions()) }
            ?: Ledger.sqlite("shop-ledger.db", LedgerOptions())
        shop(Client.fromEnv(), ledger)
    }.start(wait = true)
}
