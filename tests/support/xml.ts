/**
 * Reads an XML document with a strict, conformant parser (saxes): a document that is not
 * well-formed throws, so a report with anything mixed into it fails the test. Returns the
 * elements in document order, each with its attributes and the text directly inside it.
 */
import { SaxesParser } from 'saxes';

/** One element of a parsed document. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** Text and CDATA directly inside the element. */
  text: string;
  /** Names of the enclosing elements, outermost first. */
  ancestors: string[];
}

/** Parse `text` as one XML document; throws on anything that is not well-formed. */
export function parseXml(text: string): XmlElement[] {
  const parser = new SaxesParser();
  const elements: XmlElement[] = [];
  const open: XmlElement[] = [];
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, attributes: { ...(tag.attributes as Record<string, string>) }, text: '', ancestors: open.map((item) => item.name) };
    elements.push(element);
    if (!tag.isSelfClosing) open.push(element);
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) open.pop();
  });
  // Text outside the root element is an error saxes reports itself.
  const addText = (value: string): void => {
    const current = open.at(-1);
    if (current !== undefined) current.text += value;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.write(text).close();
  if (failure !== undefined) throw failure;
  if (elements.length === 0) throw new Error('no root element');
  return elements;
}
