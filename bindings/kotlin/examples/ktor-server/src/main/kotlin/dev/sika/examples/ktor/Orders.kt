package dev.sika.examples.ktor

import dev.sika.ExpectedPayment
import java.math.BigDecimal
import java.util.concurrent.ConcurrentHashMap

/** An order: what its reference must be paid, and how it came to be fulfilled (null: not yet). */
data class Order(val reference: String, val amount: BigDecimal, val currency: String, val fulfilledBy: String? = null) {
    val expected: ExpectedPayment get() = ExpectedPayment(amount, currency)
}

/** The shop's orders. A real shop keeps them in its database; the shape is the same. */
class Orders {
    private val byReference = ConcurrentHashMap<String, Order>()

    fun add(order: Order) {
        check(byReference.putIfAbsent(order.reference, order) == null) { "order ${order.reference} exists" }
    }

    fun find(reference: String): Order? = byReference[reference]

    fun remove(reference: String) {
        byReference.remove(reference)
    }

    /**
     * Marks the order fulfilled by [how] ("webhook" or "check") the first time only: deliveries
     * repeat, and a customer's check may confirm the same payment first. Returns the order now.
     */
    fun fulfilOnce(reference: String, how: String): Order? =
        byReference.computeIfPresent(reference) { _, order -> if (order.fulfilledBy == null) order.copy(fulfilledBy = how) else order }
}
