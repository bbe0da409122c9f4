package dev.sluice.ledger;

/** The ledger cannot be opened or read: the message says where and why, without credentials. */
public final class LedgerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LedgerException(String message, Throwable cause) {
        super(message, cause);
    }

    public LedgerException(String message) {
        super(message);
    }
}
