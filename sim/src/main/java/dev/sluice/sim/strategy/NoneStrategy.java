package dev.sluice.sim.strategy;

/** No gateway control: every attempt goes straight to the provider; clients retry 429s on their own. */
final class NoneStrategy implements Strategy {

    private final StrategyContext ctx;

    NoneStrategy(StrategyContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public String name() {
        return "none";
    }

    @Override
    public void submit(Attempt attempt) {
        ctx.dispatch(attempt, 0, StrategyContext.ReplyHandler.passOn(reply -> { }));
    }
}
