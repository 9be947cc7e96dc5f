package dev.sika.examples.spring;

import dev.sika.ExpectedPayment;
import java.math.BigDecimal;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The shop's orders. A real shop keeps them in its database; the shape is the same. */
public final class Orders {
    /** An order: what its reference must be paid, and how it came to be fulfilled (null: not yet). */
    public record Order(String reference, BigDecimal amount, String currency, String fulfilledBy) {
        public ExpectedPayment expected() {
            return new ExpectedPayment(amount, currency);
        }
    }

    private final ConcurrentHashMap<String, Order> byReference = new ConcurrentHashMap<>();

    public void add(Order order) {
        if (byReference.putIfAbsent(order.reference(), order) != null) {
            throw new IllegalStateException("order " + order.reference() + " exists");
        }
    }

    public Optional<Order> find(String reference) {
        return Optional.ofNullable(byReference.get(reference));
    }

    public void remove(String reference) {
        byReference.remove(reference);
    }

    /**
     * Marks the order fulfilled by {@code how} ("webhook" or "check") the first time only:
     * deliveries repeat, and a customer's check may confirm the same payment first.
     */
    public void fulfilOnce(String reference, String how) {
        byReference.computeIfPresent(reference, (key, order) ->
                order.fulfilledBy() == null ? new Order(key, order.amount(), order.currency(), how) : order);
    }
}
