package dev.sika

import java.io.File
import java.net.ServerSocket
import java.util.Collections
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** B47: no proxy for loopback, environment proxies ignored, an explicit `proxy` checked (ADR 0021). */
class ProxyTest {
    private val sandbox = Sandbox()
    private val proxy = ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())

    /** First request lines the fake proxy received; it answers each with a forged "successful". */
    private val seen: MutableList<String> = Collections.synchronizedList(mutableListOf())
    private val proxyUrl = "http://127.0.0.1:${proxy.localPort}"

    init {
        thread(isDaemon = true) {
            while (true) {
                val socket = runCatching { proxy.accept() }.getOrNull() ?: return@thread
                socket.use {
                    seen.add(it.getInputStream().bufferedReader(Charsets.ISO_8859_1).readLine().orEmpty())
                    val forged = """{"status":"success","data":{"status":"successful"}}"""
                    it.getOutputStream().write(
                        ("HTTP/1.1 200 OK\r\nContent-Length: ${forged.length}\r\nConnection: close\r\n\r\n$forged").toByteArray(),
                    )
                }
            }
        }
    }

    @AfterEach
    fun stop() {
        proxy.close()
        sandbox.close()
    }

    @Test
    fun testB47EnvironmentProxiesAreNotUsedForLoopback() {
        sandbox.seedTransaction(transactionObject("B47-KT", "successful", "5"))
        // The environment of a process is fixed on the JVM: the call runs in a child JVM.
        val java = File(System.getProperty("java.home"), "bin/java").path
        val child = ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), ProxyChild::class.java.name, sandbox.url)
            .redirectErrorStream(true)
        child.environment().apply {
            remove("NO_PROXY")
            remove("no_proxy")
            for (name in listOf("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")) put(name, proxyUrl)
        }
        val process = child.start()
        val output = process.inputStream.bufferedReader().readText()
        assertTrue(process.waitFor(60, TimeUnit.SECONDS))
        assertEquals(0, process.exitValue(), output)
        assertTrue(output.contains("verified B47-KT"), output)
        assertEquals(emptyList<String>(), seen.toList(), "the proxy saw the loopback call and its key")
        assertEquals(1, sandbox.requests().size)
    }

    @Test
    fun testB47ABadProxyIsInvalidInputAndNothingIsSent() {
        for (bad in listOf("not a url", "ftp://127.0.0.1:21", "http://127.0.0.1:1/?x=1")) {
            val error = assertThrows(SikaException.InvalidInput::class.java) {
                BlockingClient(ClientConfig(SecretKey(KEY), sandbox.url, proxy = bad)).close()
            }
            assertEquals("proxy", error.field, bad)
        }
        assertEquals(0, sandbox.requests().size)
    }

    @Test
    fun testB47AnExplicitProxyIsNotUsedForLoopback() {
        sandbox.seedTransaction(transactionObject("B47-KT-EXPLICIT", "successful", "5"))
        BlockingClient(ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = 10_000, proxy = proxyUrl)).use {
            assertEquals("B47-KT-EXPLICIT", it.verifyTransaction("B47-KT-EXPLICIT").txRef)
        }
        assertEquals(emptyList<String>(), seen.toList())
    }
}

/** The child JVM of [ProxyTest]: one verify against the sandbox given as its argument. */
object ProxyChild {
    @JvmStatic
    fun main(args: Array<String>) {
        BlockingClient(ClientConfig(SecretKey(KEY), args[0], timeoutMs = 10_000, maxRetries = 0)).use {
            println("verified " + it.verifyTransaction("B47-KT").txRef)
        }
    }
}
