package dev.sluice.runtime.control;

import java.util.Objects;

/**
 * A change of the key tree that was refused; nothing was changed.
 *
 * @see TreeEdits
 */
public final class EditRefused extends RuntimeException {

    /** Why: each maps to one HTTP status on the admin API. */
    public enum Why {
        /** The thing to change does not exist (404). */
        NOT_FOUND,
        /** It exists already, or its name is taken (409). */
        CONFLICT,
        /** A value is out of range or inconsistent (422). */
        INVALID,
        /** The caller may not touch it (403). */
        FORBIDDEN
    }

    private final Why why;
    private final String field;
    private final String code;

    /**
     * @param why the kind of refusal
     * @param code machine-readable cause ({@code tenant_exists}, {@code outside_partner_subtree})
     * @param field the dotted path of the field at fault; {@code ""} when none is
     * @param message one human sentence naming the rule
     */
    public EditRefused(Why why, String code, String field, String message) {
        super(message);
        this.why = Objects.requireNonNull(why, "why");
        this.code = Objects.requireNonNull(code, "code");
        this.field = Objects.requireNonNull(field, "field");
    }

    public Why why() {
        return why;
    }

    public String code() {
        return code;
    }

    public String field() {
        return field;
    }
}
