package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LedgerSettingsTest {

    static final String MINI = ConfigLoaderTest.MINI;

    static SluiceConfig parse(String yaml, Map<String, String> env) {
        return ConfigLoader.parse(yaml, "ledger.yaml", env::get);
    }

    static ConfigException error(String ledger) {
        try {
            parse(MINI + ledger, Map.of());
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("expected a ConfigException");
    }

    @Test
    void withoutASectionTheLedgerIsAnSqliteFileUnderSluiceData() {
        LedgerSettings l = parse(MINI, Map.of()).ledger();
        assertThat(l.kind()).isEqualTo(LedgerSettings.Kind.SQLITE);
        assertThat(l.path()).isEqualTo(Path.of("sluice-data/ledger.db"));
        assertThat(l.flushInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(l.bufferSize()).isEqualTo(32_768);
        assertThat(l.batchSize()).isEqualTo(5_000);
        assertThat(l.retention()).isEqualTo(Duration.ofDays(30));
        assertThat(l.rollupRetention()).isEqualTo(Duration.ofDays(400));
        assertThat(l.rows()).isEqualTo(LedgerSettings.Rows.ALL);
    }

    @Test
    void readsEveryField() {
        LedgerSettings l = parse(MINI + """
                ledger:
                  kind: postgres
                  url: jdbc:postgresql://db.internal:5432/usage
                  schema: gateway_usage
                  user: sluice
                  password_env: LEDGER_PW
                  flush_interval: 500ms
                  buffer_size: 5000
                  batch_size: 200
                  retention: 7d
                  rollup_retention: 90d
                  rows: not_answered
                """, Map.of("LEDGER_PW", "hunter2")).ledger();
        assertThat(l.kind()).isEqualTo(LedgerSettings.Kind.POSTGRES);
        assertThat(l.url()).contains("jdbc:postgresql://db.internal:5432/usage");
        assertThat(l.schema()).isEqualTo("gateway_usage");
        assertThat(l.user()).contains("sluice");
        assertThat(l.password().orElseThrow().reveal()).isEqualTo("hunter2");
        assertThat(l.flushInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(l.bufferSize()).isEqualTo(5000);
        assertThat(l.batchSize()).isEqualTo(200);
        assertThat(l.retention()).isEqualTo(Duration.ofDays(7));
        assertThat(l.rollupRetention()).isEqualTo(Duration.ofDays(90));
        assertThat(l.rows()).isEqualTo(LedgerSettings.Rows.NOT_ANSWERED);
        assertThat(l.toString()).doesNotContain("hunter2");
    }

    @Test
    void rowsAreKeptForAllOnlyTheRequestsNotAnsweredOrNone() {
        assertThat(parse(MINI + "ledger: { rows: none }\n", Map.of()).ledger().rows())
                .isEqualTo(LedgerSettings.Rows.NONE);
        assertThat(error("ledger: { rows: failed }\n").getMessage())
                .isEqualTo("ledger.rows: \"failed\" (expected: one of [all, not_answered, none])");
    }

    @Test
    void notAnsweredKeepsEveryStatusButTwoHundreds() {
        LedgerSettings.Rows r = LedgerSettings.Rows.NOT_ANSWERED;
        assertThat(r.keeps(200)).isFalse();
        assertThat(r.keeps(299)).isFalse();
        assertThat(r.keeps(199)).isTrue();
        assertThat(r.keeps(300)).isTrue();
        assertThat(r.keeps(429)).isTrue();
        assertThat(r.keeps(499)).isTrue();
        assertThat(LedgerSettings.Rows.ALL.keeps(200)).isTrue();
        assertThat(LedgerSettings.Rows.NONE.keeps(500)).isFalse();
    }

    @Test
    void offNeedsNothingElse() {
        assertThat(parse(MINI + "ledger: { kind: off }\n", Map.of()).ledger().kind())
                .isEqualTo(LedgerSettings.Kind.OFF);
    }

    @Test
    void anUnsetPasswordVariableIsReportedNotThrown() {
        SluiceConfig c = parse(MINI + "ledger: { kind: postgres, url: \"jdbc:postgresql://h/db\", password_env: PW }\n",
                Map.of());
        assertThat(c.missingEnvironment()).containsExactly("ledger.password_env: environment variable PW is not set");
    }

    @Test
    void postgresNeedsAUrl() {
        ConfigException e = error("ledger: { kind: postgres }\n");
        assertThat(e.path()).isEqualTo("ledger.url");
        assertThat(e.getMessage()).isEqualTo("ledger.url: nothing (expected: a jdbc:postgresql:// URL (required for kind postgres))");
    }

    @Test
    void aPasswordInTheUrlIsRefusedWithoutShowingIt() {
        ConfigException e = error("ledger: { kind: postgres, url: \"jdbc:postgresql://h/db?user=u&password=s3cret\" }\n");
        assertThat(e.path()).isEqualTo("ledger.url");
        assertThat(e.getMessage()).doesNotContain("s3cret");
    }

    @Test
    void anotherDriversUrlIsRefusedWithoutItsQuery() {
        ConfigException e = error("ledger: { url: \"jdbc:mysql://h/db?password=x\" }\n");
        assertThat(e.getMessage()).isEqualTo("ledger.url: \"jdbc:mysql://h/db?...\" (expected: a jdbc:postgresql:// URL)");
    }

    @Test
    void unknownKindListsTheKinds() {
        ConfigException e = error("ledger: { kind: mysql }\n");
        assertThat(e.getMessage()).isEqualTo("ledger.kind: \"mysql\" (expected: one of [sqlite, postgres, off])");
    }

    @Test
    void unknownFieldNamesItsPath() {
        ConfigException e = error("ledger: { flush: 1s }\n");
        assertThat(e.path()).isEqualTo("ledger.flush");
    }

    @Test
    void flushIntervalIsBounded() {
        assertThat(error("ledger: { flush_interval: 5ms }\n").getMessage())
                .isEqualTo("ledger.flush_interval: PT0.005S (expected: between 10ms and 60s)");
        assertThat(error("ledger: { flush_interval: 2m }\n").path()).isEqualTo("ledger.flush_interval");
    }

    @Test
    void theBufferHoldsAtLeastOneBatch() {
        assertThat(error("ledger: { buffer_size: 10, batch_size: 100 }\n").getMessage())
                .isEqualTo("ledger.buffer_size: 10 (expected: batch_size (100) .. 10000000)");
        assertThat(error("ledger: { batch_size: 0 }\n").path()).isEqualTo("ledger.batch_size");
    }

    @Test
    void rollupsAreKeptAtLeastAsLongAsRows() {
        assertThat(error("ledger: { retention: 30d, rollup_retention: 7d }\n").getMessage())
                .isEqualTo("ledger.rollup_retention: PT168H (expected: >= retention (PT720H))");
        assertThat(error("ledger: { retention: 10m }\n").path()).isEqualTo("ledger.retention");
    }

    @Test
    void schemaIsAPlainSqlName() {
        assertThat(error("ledger: { schema: \"x; drop table y\" }\n").path()).isEqualTo("ledger.schema");
    }
}
