package dev.sluice.store;

/**
 * A store's receipt for a reservation: what must be handed back to settle or release it. Opaque
 * to the governor; each store has its own kind.
 */
public interface LeaseHandle {

    /** Unique within the store. */
    String id();
}
