package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytes held for translation: whole reservations or waits, oldest first, and never a deadlock. */
class TranslationBudgetTest {

    private final TranslationBudget budget = new TranslationBudget(100);
    private final List<String> told = new ArrayList<>();

    private Runnable tell(String name) {
        return () -> told.add(name);
    }

    @Test
    void aReservationThatFitsIsHeldAtOnceAndGivenBackOnClose() {
        TranslationBudget.Hold a = budget.open();
        assertThat(a.reserve(60, tell("a"))).isTrue();
        assertThat(budget.held()).isEqualTo(60);
        a.close();
        assertThat(budget.held()).isZero();
        assertThat(told).isEmpty();
    }

    @Test
    void aReservationThatDoesNotFitHoldsNothingAndWaitsUntilThereIsRoom() {
        TranslationBudget.Hold a = budget.open();
        TranslationBudget.Hold b = budget.open();
        a.reserve(60, tell("a"));
        assertThat(b.reserve(50, tell("b"))).isFalse();
        assertThat(budget.held()).as("none of it, not the 40 left").isEqualTo(60);
        assertThat(budget.waiting()).isEqualTo(1);

        a.close();
        assertThat(told).containsExactly("b");
        assertThat(budget.held()).isEqualTo(50);
        assertThat(b.bytes()).isEqualTo(50);
    }

    @Test
    void waitersAreServedOldestFirstAndANewcomerWaitsBehindThemEvenWhenItWouldFit() {
        TranslationBudget.Hold a = budget.open();
        a.reserve(90, tell("a"));
        TranslationBudget.Hold b = budget.open();
        TranslationBudget.Hold c = budget.open();
        assertThat(b.reserve(50, tell("b"))).isFalse();
        assertThat(c.reserve(5, tell("c"))).as("10 are free, but b came first").isFalse();

        a.close();
        assertThat(told).containsExactly("b", "c");
        assertThat(budget.held()).isEqualTo(55);
    }

    @Test
    void anAnswerGrowingIsGivenRoomBeforeANewOne() {
        TranslationBudget.Hold a = budget.open();
        TranslationBudget.Hold b = budget.open();
        a.reserve(50, tell("a"));
        b.reserve(40, tell("b"));
        TranslationBudget.Hold c = budget.open();
        assertThat(c.reserve(20, tell("c"))).isFalse();
        assertThat(a.reserve(70, tell("a grows"))).as("20 more; 10 free").isFalse();

        b.close();
        assertThat(told).as("a's 20 first, then c's 20 fits too").containsExactly("a grows", "c");
        assertThat(budget.held()).isEqualTo(90);
    }

    @Test
    void whenEveryAnswerHoldingBytesWaitsToGrowTheOldestGrowsAnywaySoNoneWaitsForever() {
        TranslationBudget.Hold a = budget.open();
        TranslationBudget.Hold b = budget.open();
        a.reserve(60, tell("a"));
        b.reserve(40, tell("b"));
        assertThat(a.reserve(80, tell("a grows"))).isFalse();
        assertThat(told).isEmpty();

        // b waiting too: nobody would give anything back. a, the older waiter, grows past the budget.
        assertThat(b.reserve(60, tell("b grows"))).isFalse();
        assertThat(told).containsExactly("a grows");
        assertThat(budget.held()).isEqualTo(120);

        a.close();
        assertThat(told).containsExactly("a grows", "b grows");
        assertThat(budget.held()).isEqualTo(60);
    }

    @Test
    void anAnswerGrowingIsNotHeldBackByNewAnswersWaiting() {
        TranslationBudget.Hold a = budget.open();
        a.reserve(60, tell("a"));
        TranslationBudget.Hold b = budget.open();
        assertThat(b.reserve(50, tell("b"))).isFalse();
        // b holds nothing: a's growth, which fits, goes first, since only a holds bytes it will give back.
        assertThat(a.reserve(90, tell("a grows"))).isTrue();
        assertThat(budget.held()).isEqualTo(90);
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueueAndTheNextIsServed() {
        TranslationBudget.Hold a = budget.open();
        a.reserve(90, tell("a"));
        TranslationBudget.Hold b = budget.open();
        TranslationBudget.Hold c = budget.open();
        b.reserve(50, tell("b"));
        c.reserve(10, tell("c"));

        b.close();
        assertThat(told).as("c fits in the 10 left once b stops waiting").containsExactly("c");
        assertThat(budget.waiting()).isZero();
        assertThat(budget.held()).isEqualTo(100);
        b.close();
        assertThat(budget.held()).as("closing twice gives nothing back twice").isEqualTo(100);
    }

    @Test
    void aReservationLargerThanTheWholeBudgetIsRefused() {
        assertThatThrownBy(() -> budget.open().reserve(101, tell("x"))).isInstanceOf(IllegalArgumentException.class);
    }
}
