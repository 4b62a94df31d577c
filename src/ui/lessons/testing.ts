/** Test helper: the fault search in this thread (the app runs it over Web Workers). */
import { searchFaults } from '../../sim/search/search';
import type { FindCounterexample } from '../interview/kit';

/** `searchFaults` as a `FindCounterexample`. */
export const findInThread: FindCounterexample = async (scenario, maxFaults, kinds, keepOwnFaults) => searchFaults(scenario, { maxFaults, kinds, keepOwnFaults: keepOwnFaults ?? false }).counterexample;
