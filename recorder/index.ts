/**
 * The recorder (DESIGN §6): turns the actions of a verified `act` step into a cache entry
 * with semantic target descriptions, typed-value provenance, start and end routes and the
 * controls that prove the outcome. The runner feeds it action events and writes the entry.
 */
export { actionInputFromEvent, type ActionEventLike, type EventConversion } from './action-event.js';
export { describeAction, describeStateControl, describeTargetPhrase, describeTypedValue } from './describe-action.js';
export { describeIndexedNode, describeTarget, hrefPath } from './describe-target.js';
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
export { formatRoute, originOf, routeOf, routeShape, sameRouteShape, type RouteShape } from './route-of.js';
export { countStateControl, diffStateControls, stateControlOf, type StateChanges } from './state-controls.js';
export { CONTAINER_ROLES, indexTree, labelOf, type IndexedNode, type TreeIndex } from './tree-index.js';
export { fillUniquePlaceholders, maskUniqueValues, uniquePlaceholder } from '../contract/unique-placeholders.js';
export { VALUE_GAP_RULES, classifyTypedValue, type ValueContext, type ValueProvenance } from './value-provenance.js';
export { comparableText, isVolatileSegment, normalizeVolatileText, sameText } from '../contract/volatile-text.js';
