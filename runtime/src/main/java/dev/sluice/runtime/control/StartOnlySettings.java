package dev.sluice.runtime.control;

import dev.sluice.runtime.config.Secret;
import dev.sluice.runtime.config.SluiceConfig;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The settings a running gateway read once, at start, and a reload therefore cannot put in force:
 * the listeners, the store, the ledger, the governor's lease times, the class policies, the daily
 * reset zone, metrics labels, tracing, the alert rules and the rollouts. Deployments are not
 * among them: a reload adds, removes and replaces them whole ({@code SluiceRuntime.change}). Pure:
 * which of them a file changes, as the file's field paths. Only paths are named, never values,
 * since a changed credential (the store's password) may be among them.
 */
final class StartOnlySettings {

    /** The admin listener's fields a reload puts in force: its tokens. */
    private static final Set<String> LIVE_ADMIN_FIELDS = Set.of("tokens");

    private StartOnlySettings() {}

    /**
     * The field paths, in file order, of the settings read only at start that {@code fresh} sets
     * otherwise than {@code running}: a deployment's {@code deployments.<id>.base_url}, a
     * listener's {@code server.port}, a whole section where its fields are not named one by one
     * ({@code alerts}, {@code rollouts}, {@code classes.batch}).
     */
    static List<String> changed(SluiceConfig running, SluiceConfig fresh) {
        List<String> out = new ArrayList<>();
        fields("server", running.server(), fresh.server(), Set.of(), out);
        fields("store", running.store(), fresh.store(), Set.of(), out);
        fields("ledger", running.ledger(), fresh.ledger(), Set.of(), out);
        if (!running.dailyResetZone().equals(fresh.dailyResetZone())) {
            out.add("daily_reset_zone");
        }
        if (!running.leaseTtl().equals(fresh.leaseTtl())) {
            out.add("governor.lease_ttl");
        }
        if (!running.leaseSweepInterval().equals(fresh.leaseSweepInterval())) {
            out.add("governor.lease_sweep_interval");
        }
        running.classes().forEach((c, policy) -> {
            if (!policy.equals(fresh.classes().get(c))) {
                out.add("classes." + c.wireName());
            }
        });
        if (running.admin().isPresent() && fresh.admin().isPresent()) {
            fields("admin", running.admin().get(), fresh.admin().get(), LIVE_ADMIN_FIELDS, out);
        }
        fields("metrics", running.metrics(), fresh.metrics(), Set.of(), out);
        fields("tracing", running.tracing(), fresh.tracing(), Set.of(), out);
        if (!running.alerts().equals(fresh.alerts())) {
            out.add("alerts");
        }
        if (!running.rollouts().equals(fresh.rollouts())) {
            out.add("rollouts");
        }
        return out;
    }

    /**
     * Adds {@code prefix.<field>} for every component of the two records that differs, but those
     * in {@code live}. A component's file name is its name in snake case; a credential read from
     * the environment is named by the variable that holds it ({@code password_env}).
     */
    private static void fields(String prefix, Record running, Record fresh, Set<String> live, List<String> out) {
        for (RecordComponent c : running.getClass().getRecordComponents()) {
            String name = snake(c.getName());
            if (live.contains(name)) {
                continue;
            }
            if (!same(value(c, running), value(c, fresh))) {
                String path = prefix + "." + (name.equals("api_key") || name.equals("password") ? name + "_env" : name);
                if (!out.contains(path)) {
                    out.add(path);
                }
            }
        }
    }

    private static Object value(RecordComponent c, Record r) {
        try {
            return c.getAccessor().invoke(r);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c.getName() + " of " + r.getClass().getSimpleName(), e);
        }
    }

    /** Equal values; a credential (which has no equality of its own) by what it holds. */
    private static boolean same(Object a, Object b) {
        if (a instanceof Optional<?> oa && b instanceof Optional<?> ob) {
            return oa.isPresent() == ob.isPresent() && (oa.isEmpty() || same(oa.get(), ob.get()));
        }
        if (a instanceof Secret sa && b instanceof Secret sb) {
            return sa.reveal().equals(sb.reveal());
        }
        return Objects.equals(a, b);
    }

    /** {@code maxBodyBytes} to {@code max_body_bytes}. */
    static String snake(String camel) {
        StringBuilder b = new StringBuilder(camel.length() + 4);
        for (char ch : camel.toCharArray()) {
            if (Character.isUpperCase(ch)) {
                b.append('_').append(Character.toLowerCase(ch));
            } else {
                b.append(ch);
            }
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }
}
