package dev.sika.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * B262: {@link SikaSandboxExtension} under JUnit's parallel execution (issue 47: with one shared
 * sandbox reset in every {@code beforeEach}, 4-5 of a merchant's 21 tests failed at parallelism
 * 4). Its own suite ({@link ExtensionCases}: 15 tests over four classes) is run through JUnit's
 * engine in parallel (classes and methods concurrent, parallelism 4) and one at a time: every test
 * passes both ways; in parallel the tests overlapped, each got a sandbox of its own (stopped
 * after it) and those holding {@link SikaSandbox#SHARED} shared the run's one; one at a time, the
 * whole run has one sandbox.
 */
class SikaSandboxExtensionTest {
    private static final Class<?>[] SUITE = {
        ExtensionCases.OrdersCases.class, ExtensionCases.FaultsCases.class, ExtensionCases.WebhooksCases.class,
        ExtensionCases.SharedCases.class,
    };
    private static final int TESTS = 15;
    private static final int OWN = 12;

    private static EngineExecutionResults run(Map<String, String> configuration) {
        ExtensionCases.reset();
        var kit = EngineTestKit.engine("junit-jupiter").configurationParameters(configuration);
        for (Class<?> type : SUITE) {
            kit = kit.selectors(selectClass(type));
        }
        EngineExecutionResults results = kit.execute();
        List<String> failures = results.testEvents().failed().stream().map(SikaSandboxExtensionTest::describe).toList();
        assertEquals(List.of(), failures, "failed tests");
        results.testEvents().assertStatistics(stats -> stats.started(TESTS).succeeded(TESTS).failed(0));
        return results;
    }

    private static String describe(Event event) {
        return event.getTestDescriptor().getUniqueId() + ": "
                + event.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                        .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).map(String::valueOf).orElse("?");
    }

    @Test
    void b262InParallelEachTestHasASandboxOfItsOwnAndTheLockHoldersShareOne() {
        run(Map.of(
                SikaSandboxExtension.PARALLEL, "true",
                "junit.jupiter.execution.parallel.mode.default", "concurrent",
                "junit.jupiter.execution.parallel.mode.classes.default", "concurrent",
                "junit.jupiter.execution.parallel.config.strategy", "fixed",
                "junit.jupiter.execution.parallel.config.fixed.parallelism", "4"));
        assertTrue(ExtensionCases.MOST_AT_ONCE.get() >= 2, "the tests ran one at a time: " + ExtensionCases.MOST_AT_ONCE.get());
        Set<String> own = new HashSet<>(ExtensionCases.SANDBOX_OF.values());
        assertEquals(OWN, ExtensionCases.SANDBOX_OF.size(), ExtensionCases.SANDBOX_OF.toString());
        assertEquals(OWN, own.size(), "a sandbox per test: " + ExtensionCases.SANDBOX_OF);
        assertEquals(1, ExtensionCases.SHARED_SANDBOXES.size(), "the lock's holders share one: " + ExtensionCases.SHARED_SANDBOXES);
        assertTrue(own.stream().noneMatch(ExtensionCases.SHARED_SANDBOXES::contains));
        // Each test's own sandbox was stopped when the test ended, the shared one with the run.
        for (String url : own) {
            assertStopped(url);
        }
        ExtensionCases.SHARED_SANDBOXES.forEach(SikaSandboxExtensionTest::assertStopped);
    }

    @Test
    void b262OneAtATimeTheRunHasOneSandboxResetBeforeEachTest() {
        run(Map.of());
        assertEquals(1, ExtensionCases.MOST_AT_ONCE.get());
        Set<String> all = new HashSet<>(ExtensionCases.SANDBOX_OF.values());
        all.addAll(ExtensionCases.SHARED_SANDBOXES);
        assertEquals(1, all.size(), "one sandbox per run: " + all);
        all.forEach(SikaSandboxExtensionTest::assertStopped);
    }

    private static void assertStopped(String url) {
        URI uri = URI.create(url);
        assertThrows(IOException.class, () -> new Socket(uri.getHost(), uri.getPort()).close(), url + " still answers");
    }
}
