package dev.sika.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sika.BlockingClient;
import dev.sika.ExpectedPayment;
import dev.sika.PaymentCheck;
import dev.sika.SikaException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The extension's own suite, as a merchant's would use it: run by {@link SikaSandboxExtensionTest}
 * through JUnit's engine, in parallel and one at a time (not by Surefire itself: the nested
 * classes' names end in {@code Cases}). Each test changes the sandbox's state (a seeded
 * transaction, its requests, a fault, a webhook URL and its deliveries, a setting) and checks that
 * it sees exactly its own, with a pause in the middle so that tests run at once overlap; the
 * suite then fails wherever one sandbox is shared between tests running at once and reset by
 * each.
 */
final class ExtensionCases {
    private ExtensionCases() {}

    /** Tests running now, and the most that ran at once: the parallel run's proof that tests overlapped. */
    static final AtomicInteger RUNNING = new AtomicInteger();
    static final AtomicInteger MOST_AT_ONCE = new AtomicInteger();
    /** The base URL each test was given, by its display name. */
    static final Map<String, String> SANDBOX_OF = new ConcurrentHashMap<>();
    /** The base URLs given to the tests holding {@link SikaSandbox#SHARED}. */
    static final Set<String> SHARED_SANDBOXES = ConcurrentHashMap.newKeySet();
    /** The first sandbox a test holding the lock was given in this run. */
    static final AtomicReference<SikaSandbox> FIRST_SHARED = new AtomicReference<>();

    static void reset() {
        WebhooksCases.RECEIVERS.clear();
        FIRST_SHARED.set(null);
        RUNNING.set(0);
        MOST_AT_ONCE.set(0);
        SANDBOX_OF.clear();
        SHARED_SANDBOXES.clear();
    }

    /** Counts the test as running; its pause lets a parallel run's other tests start meanwhile. */
    abstract static class Counted {
        @BeforeEach
        void started() {
            MOST_AT_ONCE.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
        }

        @AfterEach
        void ended() {
            RUNNING.decrementAndGet();
        }

        static void pause() {
            try {
                Thread.sleep(150);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void given(SikaSandbox sandbox, RepetitionInfo repetition, String what) {
            SANDBOX_OF.put(what + repetition.getCurrentRepetition(), sandbox.baseUrl());
        }
    }

    /** A seeded transaction, confirmed; its requests are the test's alone. */
    @ExtendWith(SikaSandboxExtension.class)
    static class OrdersCases extends Counted {
        @RepeatedTest(4)
        void aSeededOrderIsConfirmedAndItsRequestsAreItsOwn(SikaSandbox sandbox, RepetitionInfo repetition) throws SikaException {
            given(sandbox, repetition, "orders");
            String reference = "ORDER-" + repetition.getCurrentRepetition();
            assertEquals(List.of(), sandbox.requests(), "a fresh sandbox has no requests");
            sandbox.seedTransaction(reference, new BigDecimal("25.50"), "GHS", "successful");
            try (BlockingClient client = sandbox.blockingClient()) {
                assertEquals(reference, client.verifyTransaction(reference).getTxRef());
                pause();
                PaymentCheck check = client.confirmPayment(reference, new ExpectedPayment(new BigDecimal("25.50"), "GHS"));
                assertTrue(check instanceof PaymentCheck.Confirmed, String.valueOf(check));
            }
            assertEquals(List.of("/transaction/verify/" + reference, "/transaction/verify/" + reference),
                    sandbox.requests().stream().map(request -> request.get("path")).toList());
        }
    }

    /** A fault added by one test fails that test's call only. */
    @ExtendWith(SikaSandboxExtension.class)
    static class FaultsCases extends Counted {
        @RepeatedTest(4)
        void aFaultHitsTheTestsOwnCall(SikaSandbox sandbox, RepetitionInfo repetition) throws SikaException {
            given(sandbox, repetition, "faults");
            sandbox.addFault("/mobile-money-providers", "status", 1, Map.<String, Object>of("status", 401));
            pause();
            try (BlockingClient client = sandbox.blockingClient()) {
                assertThrows(SikaException.Api.class, () -> client.listMobileMoneyProviders("GH"));
                assertTrue(!client.listMobileMoneyProviders("GH").isEmpty(), "the fault was for one request");
            }
            assertEquals(2, sandbox.requests().size());
        }
    }

    /**
     * The test's webhook URL and its deliveries: its own receiver (the extension's parameter, one
     * per test) gets its own notification.
     */
    @ExtendWith(SikaSandboxExtension.class)
    static class WebhooksCases extends Counted {
        /** Each test's receiver, by its URL: none is given to two tests. */
        static final Set<String> RECEIVERS = ConcurrentHashMap.newKeySet();

        @RepeatedTest(4)
        void aDeliveryReachesTheTestsOwnReceiver(SikaSandbox sandbox, SikaWebhookReceiver receiver, RepetitionInfo repetition) {
            given(sandbox, repetition, "webhooks");
            assertTrue(RECEIVERS.add(receiver.url()), "a receiver given to two tests: " + receiver.url());
            String reference = "HOOK-" + repetition.getCurrentRepetition();
            sandbox.seedTransaction(reference, new BigDecimal("10.00"), "GHS", "successful");
            sandbox.setWebhookUrl(receiver.url());
            pause();
            List<Map<String, Object>> sent = sandbox.trigger(reference, 1, false);
            assertEquals(200, ((Number) sent.get(0).get("http_status")).intValue(), String.valueOf(sent));
            assertEquals(1, receiver.deliveries().size(), String.valueOf(receiver.deliveries()));
            assertTrue(receiver.deliveries().get(0).text().contains(reference), receiver.deliveries().get(0).text());
            assertEquals(List.of(reference), sandbox.deliveries().stream().map(d -> d.get("reference")).toList());
        }
    }

    /** Under parallel execution these hold the shared sandbox's lock: one at a time, on the run's one sandbox, reset. */
    @ExtendWith(SikaSandboxExtension.class)
    @ResourceLock(SikaSandbox.SHARED)
    static class SharedCases extends Counted {
        @RepeatedTest(3)
        void theSharedSandboxIsResetBeforeEachTest(SikaSandbox sandbox, RepetitionInfo repetition) throws SikaException {
            SHARED_SANDBOXES.add(sandbox.baseUrl());
            FIRST_SHARED.compareAndSet(null, sandbox);
            assertSame(FIRST_SHARED.get(), sandbox, "one sandbox for the tests holding the lock");
            assertEquals(List.of(), sandbox.requests(), "reset before the test");
            String reference = "SHARED-" + repetition.getCurrentRepetition();
            sandbox.seedTransaction(reference, new BigDecimal("5.00"), "GHS", "pending");
            pause();
            try (BlockingClient client = sandbox.blockingClient()) {
                assertEquals(reference, client.verifyTransaction(reference).getTxRef());
            }
            assertEquals(1, sandbox.requests().size());
        }
    }
}
