/**
 * Pictures in the tool loop's history. A provider whose tool messages are text only would
 * get a screenshot as base64 text (hundreds of kB of tokens), so there the picture leaves
 * the tool result and follows as an image part of a user message. And only the newest
 * picture stays in the history: older ones become a one-line marker, like superseded screens.
 */
import type { ImagePart, ModelMessage, TextPart, ToolResultPart } from 'ai';

type ContentItem = Extract<ToolResultPart['output'], { type: 'content' }>['value'][number];

/** The marker left where a tool result's picture was taken out. */
export const PICTURE_FOLLOWS = '[The picture follows in the next message.]';
/** The marker left where a superseded picture was. */
export const PICTURE_LEFT_OUT = '[Picture left out: a newer one follows.]';

function isPicture(item: ContentItem): item is Extract<ContentItem, { type: 'image-data' | 'image-url' | 'media' | 'file-data' }> {
  if (item.type === 'image-data' || item.type === 'image-url') return true;
  return (item.type === 'media' || item.type === 'file-data') && item.mediaType.startsWith('image/');
}

function asImagePart(item: ContentItem): ImagePart | undefined {
  switch (item.type) {
    case 'image-data':
    case 'media':
    case 'file-data':
      return { type: 'image', image: item.data, mediaType: item.mediaType };
    case 'image-url':
      return { type: 'image', image: new URL(item.url) };
    default:
      return undefined;
  }
}

/**
 * Take the pictures out of a turn's tool results: the results keep their text and a marker,
 * and the pictures come back as one user message (undefined when there were none).
 */
export function movePicturesOut(parts: ToolResultPart[]): { parts: ToolResultPart[]; message: ModelMessage | undefined } {
  const images: Array<TextPart | ImagePart> = [];
  const moved = parts.map((part) => {
    if (part.output.type !== 'content' || !part.output.value.some(isPicture)) return part;
    const value: ContentItem[] = [];
    for (const item of part.output.value) {
      const image = isPicture(item) ? asImagePart(item) : undefined;
      if (image === undefined) value.push(item);
      else {
        images.push({ type: 'text', text: `The picture from ${part.toolName}:` }, image);
        value.push({ type: 'text', text: PICTURE_FOLLOWS });
      }
    }
    // Text alone travels as plain text: a chat API would show a content list as JSON.
    const output: ToolResultPart['output'] = value.every((item) => item.type === 'text')
      ? { type: 'text', value: value.map((item) => (item.type === 'text' ? item.text : '')).join('\n') }
      : { type: 'content', value };
    return { ...part, output };
  });
  if (images.length === 0) return { parts, message: undefined };
  return { parts: moved, message: { role: 'user', content: images } };
}

function pictureCount(message: ModelMessage): number {
  if (message.role === 'user' && typeof message.content !== 'string') return message.content.filter((part) => part.type === 'image').length;
  if (message.role !== 'tool') return 0;
  let count = 0;
  for (const part of message.content) if (part.type === 'tool-result' && part.output.type === 'content') count += part.output.value.filter(isPicture).length;
  return count;
}

function withoutPictures(message: ModelMessage): ModelMessage {
  if (message.role === 'user' && typeof message.content !== 'string') {
    return { ...message, content: message.content.map((part) => (part.type === 'image' ? { type: 'text' as const, text: PICTURE_LEFT_OUT } : part)) };
  }
  if (message.role !== 'tool') return message;
  const content = message.content.map((part) => {
    if (part.type !== 'tool-result' || part.output.type !== 'content') return part;
    const value = part.output.value.map((item): ContentItem => (isPicture(item) ? { type: 'text', text: PICTURE_LEFT_OUT } : item));
    return { ...part, output: { ...part.output, value } };
  });
  return { ...message, content };
}

const counts = new WeakMap<ModelMessage, number>();
const stripped = new WeakMap<ModelMessage, ModelMessage>();

/**
 * The history with only the pictures of the newest message that has any. Messages keep
 * their identity where nothing changes, and a stripped message is computed once, so the
 * prefix stays equal between turns.
 */
export function elideSupersededPictures(messages: readonly ModelMessage[]): ModelMessage[] {
  let newest = -1;
  const perMessage = messages.map((message, index) => {
    let count = counts.get(message);
    if (count === undefined) {
      count = pictureCount(message);
      counts.set(message, count);
    }
    if (count > 0) newest = index;
    return count;
  });
  if (newest === -1) return [...messages];
  return messages.map((message, index) => {
    if (index === newest || perMessage[index] === 0) return message;
    let result = stripped.get(message);
    if (result === undefined) {
      result = withoutPictures(message);
      stripped.set(message, result);
    }
    return result;
  });
}
