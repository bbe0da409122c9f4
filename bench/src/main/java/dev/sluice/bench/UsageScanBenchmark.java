package dev.sluice.bench;

import dev.sluice.gateway.translate.UsageExtractor;
import dev.sluice.gateway.translate.WireFormat;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reading the usage of a whole answer that passes through untranslated: the step between the
 * provider's last byte and the client's first, on every non-streaming request. The load
 * harness's fake answer (330 bytes) and a typical chat answer with a paragraph of text and the
 * details objects OpenAI sends today; the tree read is the baseline the scan replaces.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class UsageScanBenchmark {

    static final byte[] FAKE_ANSWER = ("{\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion\",\"created\":1700000000,"
            + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
            + "\"Hello from the fake upstream.\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,"
            + "\"completion_tokens\":7,\"total_tokens\":19}}").getBytes(StandardCharsets.UTF_8);

    static final byte[] TYPICAL_ANSWER = ("{\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion\","
            + "\"created\":1741569952,\"model\":\"gpt-4.1-2025-04-14\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
            + "\"assistant\",\"content\":\"" + "A rate limiter shapes traffic before it leaves, so that the provider "
            + "seldom has to refuse it. ".repeat(12) + "\",\"refusal\":null,\"annotations\":[]},\"logprobs\":null,"
            + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1117,\"completion_tokens\":246,"
            + "\"total_tokens\":1363,\"prompt_tokens_details\":{\"cached_tokens\":1024,\"audio_tokens\":0},"
            + "\"completion_tokens_details\":{\"reasoning_tokens\":0,\"audio_tokens\":0,\"accepted_prediction_tokens\":0,"
            + "\"rejected_prediction_tokens\":0}},\"service_tier\":\"default\",\"system_fingerprint\":\"fp_b3f1157249\"}")
            .getBytes(StandardCharsets.UTF_8);

    @Benchmark
    public Object scanFakeAnswer() {
        return UsageExtractor.scan(WireFormat.OPENAI, FAKE_ANSWER);
    }

    @Benchmark
    public Object scanTypicalAnswer() {
        return UsageExtractor.scan(WireFormat.OPENAI, TYPICAL_ANSWER);
    }

    @Benchmark
    public Object treeTypicalAnswer() {
        return UsageExtractor.extract(WireFormat.OPENAI, TYPICAL_ANSWER);
    }
}
