package dev.sika.testing;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives a test a {@link SikaSandbox}: one sandbox for the whole test run
 * (kept in the root context's store, stopped when the run ends), reset before every test of a class
 * that uses the extension.
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

    /** Creates the extension (JUnit does, through {@code @ExtendWith}). */
    public SikaSandboxExtension() {}

    private static SikaSandbox sandbox(ExtensionContext context) {
        // The root store: one sandbox per run; JUnit closes it (AutoCloseable) when the run ends.
        return context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(SikaSandbox.class, key -> SikaSandbox.start(), SikaSandbox.class);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        sandbox(context).reset();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == SikaSandbox.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return sandbox(context);
    }
}
