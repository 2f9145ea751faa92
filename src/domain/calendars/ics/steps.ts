import ICAL from 'ical.js';

/**
 * A budget on ical.js's recurrence iterator, for rules from calendar text we do not control.
 * The iterator checks every candidate time with check_contracting_rules (also while a
 * RecurExpansion or a VTIMEZONE sets itself up), so that method is the one place where every
 * step can be counted and stopped. A rule whose filters rarely match steps through many
 * candidates per occurrence (FREQ=SECONDLY;BYMONTH=6: 7.9 million before its first June), one
 * that never matches loops forever inside ical.js 2.2 (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30), and
 * a VTIMEZONE observance with FREQ=HOURLY from 1601 takes ~50 s to expand.
 */

export class StepBudgetExceeded extends Error {
  constructor() {
    super('recurrence rule needs too many steps');
  }
}

/** The budget of the expansion under way; null outside withStepBudget (no limit). */
let budget: { left: number } | null = null;

const checkContractingRules = ICAL.RecurIterator.prototype.check_contracting_rules;
ICAL.RecurIterator.prototype.check_contracting_rules = function (this: ICAL.RecurIterator): boolean {
  if (budget && --budget.left < 0) throw new StepBudgetExceeded();
  return checkContractingRules.call(this);
};

/** Runs fn with at most `limit` iterator steps (nested calls get their own budget). */
export function withStepBudget<T>(limit: number, fn: () => T): T {
  const outer = budget;
  budget = { left: limit };
  try {
    return fn();
  } finally {
    budget = outer;
  }
}
