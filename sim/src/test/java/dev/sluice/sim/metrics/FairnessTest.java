package dev.sluice.sim.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class FairnessTest {

    @Test
    void waterFillingGivesSmallDemandsInFullAndSplitsTheRestByWeight() {
        double[] fair = Fairness.fairShares(new double[] {10, 100, 100}, new double[] {1, 1, 2}, 100);
        assertThat(fair[0]).isEqualTo(10);
        assertThat(fair[1]).isCloseTo(30, within(1e-9));
        assertThat(fair[2]).isCloseTo(60, within(1e-9));
    }

    @Test
    void jainIsOneWhenSaturatingTenantsAreServedInProportionToWeight() {
        double[] demand = {500, 500, 500};
        double[] fair = Fairness.fairShares(demand, new double[] {1, 2, 4}, 700);
        assertThat(Fairness.jain(demand, new double[] {100, 200, 400}, fair)).isCloseTo(1.0, within(1e-12));
        assertThat(Fairness.shareError(new double[] {100, 200, 400}, fair)).isCloseTo(0, within(1e-12));
    }

    @Test
    void equalServiceOfUnequalWeightsIsUnfair() {
        double[] demand = {500, 500, 500};
        double[] fair = Fairness.fairShares(demand, new double[] {1, 2, 4}, 700);
        // x = served/fair = 2.33, 1.17, 0.58: (4.083)^2 / (3 x 7.146) = 0.778.
        assertThat(Fairness.jain(demand, new double[] {233.33, 233.33, 233.34}, fair)).isCloseTo(0.778, within(0.001));
        assertThat(Fairness.shareError(new double[] {1, 1, 1}, fair)).isCloseTo(0.2381, within(0.0001));
    }

    @Test
    void tenantsThatGotAllTheyWantedDoNotCount() {
        double[] demand = {10, 500};
        double[] fair = Fairness.fairShares(demand, new double[] {1, 1}, 300);
        assertThat(Fairness.contended(demand, fair)).isEqualTo(1);
        assertThat(Fairness.jain(demand, new double[] {10, 290}, fair)).isEqualTo(1.0);
    }
}
