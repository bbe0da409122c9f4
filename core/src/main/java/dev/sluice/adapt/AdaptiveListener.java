package dev.sluice.adapt;

/**
 * Sees what adaptive controllers do. Called on the thread that drove the controller, after its
 * state lock is released; must be quick and must not block.
 */
@FunctionalInterface
public interface AdaptiveListener {

    void onEvent(AdaptiveEvent event);
}
