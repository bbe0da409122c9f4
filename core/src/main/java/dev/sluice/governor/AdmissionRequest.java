package dev.sluice.governor;

import java.util.Objects;

/**
 * One request asking for capacity.
 *
 * @param requestId the caller's id for it (trace id), for events and errors
 * @param path where it sits in the hierarchy
 * @param demand what it is expected to take
 * @param trafficClass its queue and wait budget
 * @param deadlineNanos the caller's deadline on the governor's clock; {@link #NO_DEADLINE} for none
 */
public record AdmissionRequest(String requestId, RequestPath path, Demand demand, TrafficClass trafficClass,
        long deadlineNanos) {

    public static final long NO_DEADLINE = Long.MAX_VALUE;

    public AdmissionRequest {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(demand, "demand");
        Objects.requireNonNull(trafficClass, "trafficClass");
    }
}
