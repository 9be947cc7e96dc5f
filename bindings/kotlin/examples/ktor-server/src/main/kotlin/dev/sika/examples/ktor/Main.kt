// The shop as a process: `SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=... PORT=8080`
// (the sandbox's URL and key for a try; the service's in production), then
// `mvn -q compile exec:java`-style runners or `java -cp ... dev.sika.examples.ktor.MainKt`.
package dev.sika.examples.ktor

import dev.sika.Client
import io.ktor.server.engine.embeddedServer
import io.ktor.server.cio.CIO

fun main() {
    val port = System.getenv("PORT")?.toInt() ?: 8080
    // Client.fromEnv() throws SikaException.Configuration (no request sent) when a setting is
    // missing or wrong: the server then does not start at all.
    embeddedServer(CIO, port = port, host = "127.0.0.1") { shop(Client.fromEnv()) }.start(wait = true)
}
