package dev.sluice.runtime.request;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Deployments added, removed and replaced by {@link SluiceRuntime#change} while requests run,
 * without sockets: where the next attempt goes, what happens to the one in flight and to the one
 * waiting, and that every reservation ends exactly once.
 */
class LiveDeploymentChangeTest {

    /** {@code oa} takes one request a second (60 rpm); profile {@code other} runs on {@code ob} alone. */
    private static final String YAML = """
            deployments:
              oa: { kind: openai, base_url: "http://127.0.0.1:1", api_key_env: OA_KEY, limits: { rpm: 60 } }
              ob: { kind: openai, base_url: "http://127.0.0.1:3", limits: { rpm: 60 } }
            %s
            profiles:
              chat: { model: gpt-4o, deployment: %s }
              other: { model: gpt-4o, deployment: ob }
            orgs:
              o: { tenants: { acme: { teams: { t: { keys: { k: { secret: "sk-live-change" } } } } } } }
            """;
    private static final SluiceConfig START = parse("", "oa", "sk-old");
    private static final SignalNormaliser OPENAI = new SignalNormaliser(ProviderKind.OPENAI);

    private final FakeClock clock = new FakeClock();
    private final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    private final SluiceRuntime runtime = SluiceRuntime.builder(START, store).clock(clock).build();
    private final List<String> closed = new ArrayList<>();
    private int arrived;

    LiveDeploymentChangeTest() {
        runtime.deployments().onClosed(d -> closed.add(d.id() + "@" + d.baseUrl().getPort()));
    }

    static SluiceConfig parse(String more, String chatOn) {
        return parse(more, chatOn, "sk-old");
    }

    /** The file with {@code more} deployments, profile chat on {@code chatOn}, and oa's credential {@code key}. */
    static SluiceConfig parse(String more, String chatOn, String key) {
        return ConfigLoader.parse(YAML.formatted(more, chatOn), "live.yaml", Map.of("OA_KEY", key)::get);
    }

    /** The start's deployments with {@code az} added and profile chat moved onto it. */
    static SluiceConfig withAz() {
        return parse("  az: { kind: openai, base_url: \"http://127.0.0.1:2\", limits: { rpm: 600 } }", "az");
    }

    /** {@link #withAz()} without {@code oa}. */
    static SluiceConfig withoutOa() {
        SluiceConfig c = withAz();
        var deployments = new java.util.LinkedHashMap<>(c.deployments());
        deployments.remove("oa");
        return c.withDeployments(deployments);
    }

    @AfterEach
    void everyReservationEnded() {
        assertThat(runtime.counters().reservationsOpen()).as(runtime.counters().toString()).isZero();
        assertThat(store.openLeases()).isZero();
    }

    private RequestLifecycle arrive(String profile) {
        return arrive(profile, TrafficClass.INTERACTIVE);
    }

    private RequestLifecycle arrive(String profile, TrafficClass c) {
        String trace = "trace-" + (++arrived);
        RequestLifecycle life = runtime.arrive(trace, RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan(trace, "openai.chat", new Caller("o", "acme", "t", "k"),
                runtime.config().profiles().get(profile), c, clock.nanos() + 30_000_000_000L,
                new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE), false));
        return life;
    }

    private static Admission[] ask(RequestLifecycle life) {
        Admission[] out = new Admission[1];
        life.admit(a -> out[0] = a);
        return out;
    }

    private static Attempt admitted(Admission[] out) {
        assertThat(out[0]).isInstanceOf(Admission.Admitted.class);
        return ((Admission.Admitted) out[0]).attempt();
    }

    private static void answer(RequestLifecycle life, Attempt a) {
        a.sending();
        a.finish(new AttemptOutcome.Answered(OPENAI.normalise(200, n -> List.of(), "", 0),
                new ObservedUsage(900, 50, 0, 0, true)));
        life.answered(200, Optional.empty(), OptionalLong.empty());
    }

    private long requestsAvailable(String deployment) {
        return (long) runtime.governor().bucket(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, deployment)).orElseThrow()
                .of(Dimension.REQUESTS).orElseThrow().available();
    }

    @Test
    void anAddedDeploymentGetsItsBudgetLimitsAndControllerAndTakesTheProfileThatNamesIt() {
        runtime.change(c -> withAz());

        assertThat(runtime.retryBudget("az")).isNotNull();
        assertThat(runtime.controller("az")).as("its ramp starts before its first request").isPresent();
        assertThat(requestsAvailable("az")).isEqualTo(10);
        RequestLifecycle life = arrive("chat");
        Attempt a = admitted(ask(life));
        assertThat(a.deployment().id()).isEqualTo("az");
        assertThat(life.fallbackReason()).isEmpty();
        answer(life, a);
        assertThat(closed).isEmpty();
    }

    @Test
    void aRemovedDeploymentTakesNoNewAttemptAndClosesOnceItsAttemptInFlightHasSettled() {
        RequestLifecycle first = arrive("chat");
        Attempt inFlight = admitted(ask(first));

        runtime.change(c -> withoutOa());

        assertThat(runtime.deployments().version("oa")).isEmpty();
        assertThat(runtime.controller("oa")).isEmpty();
        assertThat(inFlight.version().retired()).isTrue();
        assertThat(inFlight.version().inFlight()).isEqualTo(1);
        assertThat(closed).as("not while its attempt runs").isEmpty();
        RequestLifecycle second = arrive("chat");
        Attempt next = admitted(ask(second));
        assertThat(next.deployment().id()).isEqualTo("az");

        answer(first, inFlight);
        answer(second, next);
        assertThat(closed).containsExactly("oa@1");
        assertThat(runtime.counters().reservationsSettled()).isEqualTo(2);
    }

    @Test
    void aRemovedDeploymentClosesOnceItsAttemptInFlightIsRefusedAsInvalid() {
        RequestLifecycle first = arrive("chat");
        Attempt inFlight = admitted(ask(first));

        runtime.change(c -> withoutOa());
        inFlight.sending();
        inFlight.finish(new AttemptOutcome.Refused(OPENAI.normalise(400, n -> List.of(), "", 0)));
        first.answered(400, Optional.empty(), OptionalLong.empty());

        assertThat(inFlight.version().inFlight()).isZero();
        assertThat(closed).as("an invalid refusal's settlement ends its attempt too").containsExactly("oa@1");
    }

    @Test
    void aRequestWaitingForARemovedDeploymentMovesThroughItsProfileAsItIsNow() {
        RequestLifecycle first = arrive("chat");
        Attempt held = admitted(ask(first)); // oa's one request this second
        RequestLifecycle waiting = arrive("chat", TrafficClass.BATCH);
        Admission[] out = ask(waiting);
        assertThat(out[0]).as("queued behind it").isNull();

        runtime.change(c -> withoutOa());

        Attempt moved = admitted(out);
        assertThat(moved.deployment().id()).isEqualTo("az");
        assertThat(waiting.fallbackReason()).contains("deployment_removed");
        answer(waiting, moved);
        answer(first, held);
        assertThat(runtime.counters().localRejections()).isZero();
    }

    @Test
    void aRequestWaitingForARemovedDeploymentWithNowhereElseIsAnsweredDeploymentRemoved() {
        RequestLifecycle first = arrive("other");
        Attempt held = admitted(ask(first));
        RequestLifecycle waiting = arrive("other", TrafficClass.BATCH);
        Admission[] out = ask(waiting);
        assertThat(out[0]).isNull();
        SluiceConfig next = START.withProfiles(Map.of("chat", START.profiles().get("chat")));
        var deployments = new java.util.LinkedHashMap<>(next.deployments());
        deployments.remove("ob");

        runtime.change(c -> next.withDeployments(deployments));

        assertThat(out[0]).isInstanceOf(Admission.Refused.class);
        assertThat(((Admission.Refused) out[0]).rejection().code()).isEqualTo("deployment_removed");
        assertThat(((Admission.Refused) out[0]).rejection().scopeName()).isEqualTo("deployment:ob");
        waiting.answered(429, Optional.of("deployment_removed"), OptionalLong.empty());
        answer(first, held);
        assertThat(closed).containsExactly("ob@3");
    }

    @Test
    void aRotatedCredentialKeepsBucketsQueueAndControllerAndSendsWhatIsAdmittedFromNowOnWithTheNewOne() {
        var controller = runtime.controller("oa").orElseThrow();
        RequestLifecycle first = arrive("chat");
        Attempt onOld = admitted(ask(first));
        RequestLifecycle waiting = arrive("chat", TrafficClass.BATCH);
        Admission[] out = ask(waiting);
        assertThat(requestsAvailable("oa")).isEqualTo(0);

        runtime.change(c -> parse("", "oa", "sk-new"));

        assertThat(requestsAvailable("oa")).as("the bucket as it was").isEqualTo(0);
        assertThat(out[0]).as("still waiting in its queue").isNull();
        assertThat(runtime.controller("oa")).containsSame(controller);
        assertThat(onOld.deployment().apiKey().orElseThrow().reveal()).as("in flight as it was sent").isEqualTo("sk-old");
        onOld.sending();
        // A 429 with a short retry hint would be retried on the same deployment; never on a retired version.
        onOld.finish(new AttemptOutcome.Throttled(OPENAI.normalise(429,
                n -> n.equalsIgnoreCase("retry-after-ms") ? List.of("10") : List.of(), "", 0)));
        first.answered(429, Optional.of("rate_limit_exceeded"), OptionalLong.empty());
        assertThat(runtime.counters().gatewayRetries()).isZero();
        assertThat(closed).containsExactly("oa@1");

        // Past the cooldown the 429 set (the controller kept it): the waiting request is admitted.
        clock.advanceMillis(10_000);
        runtime.governor().onTimer();
        Attempt onNew = admitted(out);
        assertThat(onNew.deployment().apiKey().orElseThrow().reveal()).isEqualTo("sk-new");
        assertThat(onNew.version()).isSameAs(runtime.deployments().version("oa").orElseThrow());
        answer(waiting, onNew);
    }

    @Test
    void aDeploymentMovedToAnotherBaseUrlGetsANewControllerAndNewAttemptsGoThere() {
        var controller = runtime.controller("oa").orElseThrow();

        runtime.change(c -> parse("", "oa").withDeployments(withPort(c, "oa", 9)));

        assertThat(runtime.controller("oa")).isPresent().get().isNotSameAs(controller);
        assertThat(runtime.deployments().version("oa").orElseThrow().config().baseUrl().getPort()).isEqualTo(9);
        assertThat(closed).as("nothing was in flight on the old one").containsExactly("oa@1");
    }

    private static Map<String, DeploymentConfig> withPort(SluiceConfig c, String id, int port) {
        var out = new java.util.LinkedHashMap<>(c.deployments());
        out.put(id, c.deployments().get(id).withBaseUrl(java.net.URI.create("http://127.0.0.1:" + port)));
        return out;
    }
}
