package dev.sika.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.AnnotatedElement;
import java.util.Optional;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * A JUnit 5 extension that gives a test a {@link SikaSandbox}, and a {@link SikaWebhookReceiver}
 * (the merchant's endpoint, one per test or class that asks, stopped after it).
 *
 * <ul>
 *   <li>Tests run one at a time (JUnit's default): one sandbox for the whole test run (kept in the
 *       root context's store, stopped when the run ends), reset before every test of a class that
 *       uses the extension.
 *   <li>Under JUnit's parallel execution ({@code junit.jupiter.execution.parallel.enabled=true}):
 *       each test gets a sandbox of its own, started for it and stopped after it, so tests running
 *       at once never see each other's transactions, requests, deliveries, faults or settings. A
 *       sandbox resolved outside a test (a {@code @BeforeAll} parameter) belongs to its class.
 *   <li>Under parallel execution, tests that should share the run's one sandbox (to save its start,
 *       a few milliseconds) declare the lock {@link SikaSandbox#SHARED} (read-write):
 *       {@code @ResourceLock(SikaSandbox.SHARED)} on the class or method. JUnit then runs them one
 *       at a time, and each is given the shared sandbox, reset before it, as without parallelism.
 * </ul>
 *
 * <pre>{@code
 * @ExtendWith(SikaSandboxExtension.class)
 * class CheckoutTest {
 *     @Test
 *     void paidOrderShips(SikaSandbox sandbox) throws Exception {
 *         sandbox.seedTransaction("ORDER-17", new BigDecimal("25.50"), "GHS", "successful");
 *         try (BlockingClient client = sandbox.blockingClient()) { ... }
 *     }
 * }
 * }</pre>
 */
public final class SikaSandboxExtension implements BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SikaSandbox.class);
    /** JUnit's switch for parallel execution. */
    static final String PARALLEL = "junit.jupiter.execution.parallel.enabled";

    /** Creates the extension (JUnit does, through {@code @ExtendWith}). */
    public SikaSandboxExtension() {}

    private static SikaSandbox sandbox(ExtensionContext context) {
        // The root store: one sandbox per run; JUnit closes it (AutoCloseable) when the run ends.
        if (shared(context)) {
            return context.getRoot().getStore(NAMESPACE)
                    .getOrComputeIfAbsent(SikaSandbox.class, key -> SikaSandbox.start(), SikaSandbox.class);
        }
        // Otherwise the store of the test (or class) that asked, closed when it ends. Keyed by its
        // own id: a store also answers with its parents' values, which are not this test's.
        return context.getStore(NAMESPACE)
                .getOrComputeIfAbsent(context.getUniqueId(), key -> SikaSandbox.start(), SikaSandbox.class);
    }

    /**
     * Whether {@code context} uses the run's shared sandbox: always without parallel execution,
     * and under it when the test or its class (or an enclosing class) holds {@link SikaSandbox#SHARED}.
     */
    static boolean shared(ExtensionContext context) {
        boolean parallel = context.getConfigurationParameter(PARALLEL).map(Boolean::parseBoolean).orElse(false);
        if (!parallel) {
            return true;
        }
        for (Optional<ExtensionContext> at = Optional.of(context); at.isPresent(); at = at.get().getParent()) {
            Optional<AnnotatedElement> element = at.get().getElement();
            if (element.isPresent() && holdsSharedLock(element.get())) {
                return true;
            }
        }
        return false;
    }

    private static boolean holdsSharedLock(AnnotatedElement element) {
        return AnnotationSupport.findRepeatableAnnotations(element, ResourceLock.class).stream()
                .anyMatch(lock -> SikaSandbox.SHARED.equals(lock.value()));
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // A sandbox of the test's own starts fresh when its parameter is resolved.
        if (shared(context)) {
            sandbox(context).reset();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == SikaSandbox.class || type == SikaWebhookReceiver.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        if (parameter.getParameter().getType() == SikaWebhookReceiver.class) {
            return receiver(context);
        }
        return sandbox(context);
    }

    /** The receiver of the test (or class) that asked: started for it, closed when it ends. */
    private static SikaWebhookReceiver receiver(ExtensionContext context) {
        return context.getStore(NAMESPACE).getOrComputeIfAbsent(
                SikaWebhookReceiver.class.getName() + " " + context.getUniqueId(),
                key -> {
                    try {
                        return SikaWebhookReceiver.start();
                    } catch (IOException failure) {
                        throw new UncheckedIOException("the webhook receiver could not listen on loopback", failure);
                    }
                },
                SikaWebhookReceiver.class);
    }
}
