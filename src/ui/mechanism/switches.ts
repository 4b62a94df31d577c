/**
 * The mechanism switches, read from the simulation core (`src/sim/controls`): their definitions,
 * which are shown and which can change the run (one source for the panel, the compare view, the
 * editor and the property tests).
 */
export { SWITCHES, relevantSwitches, flipSwitch, switchValueText, switchHint, switchOptions, switchStatus, switchStatuses, type SwitchDef, type SwitchFacts, type SwitchOption, type SwitchStatus } from '../../sim';
