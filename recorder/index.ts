/**
 * The recorder (DESIGN §6): a verified step's actions, or a passing judge's evidence, as a cache
 * entry. See recorder/README.md.
 */
export { actionInputFromEvent, type ActionEventLike, type EventConversion } from './action-event.js';
export { describeAction, describeStateControl, describeTargetPhrase, describeTypedValue } from '../semantics/describe-action.js';
export { describeIndexedNode, describeTarget, hrefPath } from '../semantics/describe-target.js';
export { ACTION_GAP_RULES, convertAction, type ActionCall, type ScreenSnapshot, type ValueOrigin } from './record-action.js';
export {
  StepRecorder,
  buildActEntry,
  type ActEntryMetadata,
  type ActEntryResult,
  type RecordedActionInput,
  type StepRecorderOptions,
  type StepRecording,
  type StepRecordingResult,
} from './record-step.js';
export { formatRoute, originOf, routeOf, routeShape, sameRouteShape, type RouteShape } from '../semantics/route-of.js';
export { countStateControl, diffStateControls, stateControlOf, type StateChanges } from '../semantics/state-controls.js';
export { CONTAINER_ROLES, indexTree, labelOf, type IndexedNode, type TreeIndex } from '../semantics/tree-index.js';
export { VALUE_GAP_RULES, classifyTypedValue, type ValueContext, type ValueProvenance } from './value-provenance.js';
