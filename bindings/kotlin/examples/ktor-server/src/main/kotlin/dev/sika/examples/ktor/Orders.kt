package dev.sika.examples.ktor

import dev.sika.ExpectedPayment
import java.math.BigDecimal
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue

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

    private val shipped = ConcurrentLinkedQueue<Pair<String, String>>()

    /**
     * Ships the order and marks it fulfilled by [how] ("webhook" or "check"). Not idempotent, as
     * shipping a parcel is not: called twice, it ships twice. The ledger's claim makes sure it is
     * called once per paid order (only the caller given `Fulfil` ships).
     */
    fun ship(reference: String, how: String) {
        shipped.add(reference to how)
        byReference.computeIfPresent(reference) { _, order -> order.copy(fulfilledBy = how) }
    }

    /** Every shipment so far, in order: (reference, how). */
    fun shipments(): List<Pair<String, String>> = shipped.toList()
}
