package dev.sluice.gateway.admin;

/** Answers one admin route. Runs on the admin listener's event loop: it must not block. */
@FunctionalInterface
public interface AdminHandler {

    void handle(AdminExchange exchange);
}
