package dev.sika.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sika.BlockingLedger;
import dev.sika.ExpectedPayment;
import dev.sika.LedgerOptions;
import dev.sika.Sandbox;
import dev.sika.SandboxKt;
import dev.sika.SupportKt;
import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import kotlinx.serialization.json.JsonElementKt;
import kotlinx.serialization.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * B264: the shop's scheduled reconcile (Reconciler) stops at shutdown. The shop runs as a merchant
 * deploys it, in a JVM of its own, over a ledger with 8 payments still open whose verifies the
 * sandbox answers slowly (4.5 s each: a run of 8 at 4 in flight takes 9 s). Once the run's
 * verifies are in flight, the JVM gets SIGTERM (issue 47: a running reconcile kept the JVM up 12 s
 * after Spring's graceful shutdown ended): it exits within 3 s, the run interrupted
 * ("reconcile: stopped at shutdown"), the payments not checked still open in the ledger.
 */
class ReconcileShutdownTest {
    private static final int OPEN = 8;
    private static final int SLOW_VERIFY_MS = 4_500;

    @Test
    void b264_sigterm_during_a_reconcile_stops_it_and_the_jvm_exits_promptly() throws Exception {
        Path dir = Files.createTempDirectory("spring-shop-reconcile");
        String ledgerFile = dir.resolve("ledger.db").toString();
        try (Sandbox sandbox = new Sandbox(150)) {
            try (BlockingLedger ledger = BlockingLedger.sqlite(ledgerFile, new LedgerOptions())) {
                for (int i = 1; i <= OPEN; i++) {
                    String reference = "RECONCILE-" + i;
                    sandbox.seedTransaction(SupportKt.transactionObject(reference, "successful", "10.00"));
                    ledger.expect(reference, new ExpectedPayment(new BigDecimal("10.00"), "GHS"));
                }
            }
            sandbox.fault("/transaction/verify", "delay", OPEN,
                    new JsonObject(Map.of("delay_ms", JsonElementKt.JsonPrimitive(SLOW_VERIFY_MS))));
            File log = dir.resolve("shop.log").toFile();
            // The shop's log on its standard output, as Spring Boot's default does (the test
            // classpath also holds the SDK's test logback-test.xml, which Spring would pick).
            Path logging = dir.resolve("logback.xml");
            Files.writeString(logging, "<configuration><appender name=\"out\" class=\"ch.qos.logback.core.ConsoleAppender\">"
                    + "<encoder><pattern>%level %logger - %msg%n</pattern></encoder></appender>"
                    + "<root level=\"INFO\"><appender-ref ref=\"out\"/></root></configuration>");
            String java = ProcessHandle.current().info().command().orElseThrow();
            String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            Process shop = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", classpath,
                    ShopApplication.class.getName(), "--server.port=0", "--server.address=127.0.0.1",
                    "--sika.base-url=" + sandbox.getUrl(), "--sika.secret-key=" + SandboxKt.KEY,
                    "--shop.ledger-file=" + ledgerFile, "--shop.reconcile.first=PT0.2S", "--shop.reconcile.every=PT1H",
                    "--shop.reconcile.older-than=PT0S", "--spring.main.banner-mode=off", "--logging.config=" + logging.toUri())
                    .redirectErrorStream(true).redirectOutput(log).start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (verifies(sandbox) < 4) {
                    assertTrue(shop.isAlive(), "the shop exited:\n" + read(log));
                    assertTrue(System.nanoTime() < deadline, "the reconcile's verifies never came:\n" + read(log));
                    Thread.sleep(50);
                }
                long signalled = System.nanoTime();
                shop.destroy(); // SIGTERM, as a container or systemd stops the application
                boolean exited = shop.waitFor(20, TimeUnit.SECONDS);
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);
                assertTrue(exited, "still running 20 s after SIGTERM:\n" + read(log));
                String output = read(log);
                assertTrue(tookMs < 3_000, "the JVM exited " + tookMs + " ms after SIGTERM (a verify takes " + SLOW_VERIFY_MS + " ms):\n" + output);
                assertTrue(output.contains("reconcile: stopped at shutdown"), output);
                assertFalse(output.contains("payments checked"), "the run ended on its own:\n" + output);
                assertEquals(143, shop.exitValue(), "the exit of a JVM stopped by SIGTERM:\n" + output);
            } finally {
                shop.destroyForcibly();
            }
            // The run recorded nothing half-way: every payment is still open for the next one.
            try (BlockingLedger ledger = BlockingLedger.sqlite(ledgerFile, new LedgerOptions())) {
                for (int i = 1; i <= OPEN; i++) {
                    assertEquals(null, ledger.payment("RECONCILE-" + i).getFulfilledAt(), "RECONCILE-" + i);
                }
            }
        }
    }

    private static long verifies(Sandbox sandbox) {
        List<?> requests = sandbox.requests();
        return requests.stream().filter(request -> request.toString().contains("/transaction/verify/")).count();
    }

    private static String read(File file) throws java.io.IOException {
        return Files.readString(file.toPath());
    }
}
