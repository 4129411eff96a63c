//! A read-only element tree of an XML document, built with quick-xml (the
//! reader the JUnit writer brings, so the library needs no second XML
//! crate): elements in document order with their attributes and their
//! leading text. What reading JUnit reports back needs, no more: no
//! namespaces, no DTDs, no entities beyond XML's five and character
//! references.

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};

/// A parsed document.
#[derive(Debug)]
pub(crate) struct Document {
    /// Every element, in document order: an element's descendants are the
    /// elements right after it, up to its `end`.
    elements: Vec<Element>,
}

#[derive(Debug)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    /// The text before the first child element (text, CDATA and
    /// references joined), if there is any.
    text: Option<String>,
    /// Whether a child element has begun: later text is not leading.
    had_child: bool,
    parent: Option<usize>,
    /// One past the index of the last descendant.
    end: usize,
}

/// One element of a [`Document`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node<'d> {
    doc: &'d Document,
    index: usize,
}

impl Document {
    /// Parses `text`: one root element, every element closed by its own
    /// name, no text outside the root.
    pub(crate) fn parse(text: &str) -> Result<Document, String> {
        let mut reader = quick_xml::Reader::from_str(text);
        reader.config_mut().trim_text(false);
        let mut elements: Vec<Element> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let at = |reader: &quick_xml::Reader<&[u8]>| line_at(text, reader);
        loop {
            let event = reader
                .read_event()
                .map_err(|e| format!("{e} ({})", at(&reader)))?;
            match event {
                Event::Start(tag) | Event::Empty(tag)
                    if open.is_empty() && !elements.is_empty() =>
                {
                    let name = String::from_utf8_lossy(tag.name().as_ref()).into_owned();
                    return Err(format!("a second root element <{name}> ({})", at(&reader)));
                }
                Event::Start(tag) => {
                    let i = push(&mut elements, open.last().copied(), &tag)?;
                    open.push(i);
                }
                Event::Empty(tag) => {
                    push(&mut elements, open.last().copied(), &tag)?;
                }
                Event::End(_) => {
                    // quick-xml has checked that the name matches.
                    if let Some(i) = open.pop() {
                        elements[i].end = elements.len();
                    }
                }
                Event::Text(t) => {
                    let piece = t.xml10_content().map_err(|e| e.to_string())?;
                    leading(&mut elements, &open, &piece)?;
                }
                Event::CData(t) => {
                    let piece = t.xml10_content().map_err(|e| e.to_string())?;
                    leading(&mut elements, &open, &piece)?;
                }
                Event::GeneralRef(r) => {
                    let piece = resolved(&r, || at(&reader))?;
                    leading(&mut elements, &open, &piece)?;
                }
                Event::Eof => break,
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
            }
        }
        if let Some(&i) = open.last() {
            return Err(format!("<{}> is never closed", elements[i].name));
        }
        if elements.is_empty() {
            return Err("no root element".to_string());
        }
        Ok(Document { elements })
    }

    /// The root element.
    pub(crate) fn root_element(&self) -> Node<'_> {
        Node {
            doc: self,
            index: 0,
        }
    }

    /// Every element, in document order.
    pub(crate) fn descendants(&self) -> impl Iterator<Item = Node<'_>> {
        self.root_element().descendants()
    }
}

/// Where `reader` is in `text`: `line N`.
fn line_at(text: &str, reader: &quick_xml::Reader<&[u8]>) -> String {
    let pos = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
    let line = 1 + text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count();
    format!("line {line}")
}

/// Adds `piece` to the leading text of the element open last, if no child
/// of it has begun; outside the root, only blank text is allowed.
#[inline]
fn leading(elements: &mut [Element], open: &[usize], piece: &str) -> Result<(), String> {
    match open.last() {
        Some(&i) if !elements[i].had_child => {
            elements[i]
                .text
                .get_or_insert_with(String::new)
                .push_str(piece);
            Ok(())
        }
        Some(_) => Ok(()),
        None if piece.trim().is_empty() => Ok(()),
        None => Err("text outside the root element".to_string()),
    }
}

/// The text reference `r` stands for: a character, or one of XML's five
/// entities (`at` says where, for the error of any other).
#[inline]
fn resolved(r: &BytesRef<'_>, at: impl FnOnce() -> String) -> Result<String, String> {
    Ok(match r.resolve_char_ref().map_err(|e| e.to_string())? {
        Some(c) => c.to_string(),
        None => {
            let name = r.decode().map_err(|e| e.to_string())?;
            resolve_predefined_entity(&name)
                .ok_or_else(|| format!("unknown entity &{name}; ({})", at()))?
                .to_string()
        }
    })
}

/// Adds the element `tag` under `parent`; its `end` is set when it closes
/// (an empty element has none to wait for).
fn push(
    elements: &mut Vec<Element>,
    parent: Option<usize>,
    tag: &BytesStart<'_>,
) -> Result<usize, String> {
    let name = String::from_utf8_lossy(tag.name().as_ref()).into_owned();
    let mut attributes = Vec::new();
    for a in tag.attributes() {
        let a = a.map_err(|e| format!("<{name}>: {e}"))?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("<{name} {key}>: {e}"))?
            .into_owned();
        attributes.push((key, value));
    }
    if let Some(p) = parent {
        elements[p].had_child = true;
    }
    let index = elements.len();
    elements.push(Element {
        name,
        attributes,
        text: None,
        had_child: false,
        parent,
        end: index + 1,
    });
    Ok(index)
}

impl<'d> Node<'d> {
    fn element(&self) -> &'d Element {
        &self.doc.elements[self.index]
    }

    /// The element's local name (without a namespace prefix).
    pub(crate) fn name(&self) -> &'d str {
        let name = &self.element().name;
        name.rsplit_once(':')
            .map_or(name.as_str(), |(_, local)| local)
    }

    /// Whether the element is named `name`.
    pub(crate) fn has_tag_name(&self, name: &str) -> bool {
        self.name() == name
    }

    /// The value of attribute `name`, references resolved.
    pub(crate) fn attribute(&self, name: &str) -> Option<&'d str> {
        self.element()
            .attributes
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The text before the first child element, if there is any.
    pub(crate) fn text(&self) -> Option<&'d str> {
        self.element().text.as_deref()
    }

    /// The element itself, then everything inside it, in document order.
    pub(crate) fn descendants(&self) -> impl Iterator<Item = Node<'d>> + use<'d> {
        let doc = self.doc;
        (self.index..self.element().end).map(move |index| Node { doc, index })
    }

    /// The child elements, in order.
    pub(crate) fn children(&self) -> impl Iterator<Item = Node<'d>> + use<'d> {
        let me = self.index;
        self.descendants()
            .skip(1)
            .filter(move |n| n.element().parent == Some(me))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_attributes_and_leading_text_read_back() {
        let doc = Document::parse(
            "<?xml version=\"1.0\"?>\n<!-- c -->\n<testsuites tests=\"2\">\
             <testsuite name=\"s\"><testcase name=\"a &amp; b\" classname=\"m\">\
             <failure message=\"\">boom &lt;1&gt;<![CDATA[ & more]]><x/>tail</failure>\
             </testcase><testcase name=\"line&#10;two\"/></testsuite></testsuites>\n",
        )
        .unwrap();
        let root = doc.root_element();
        assert_eq!(root.name(), "testsuites");
        assert_eq!(root.attribute("tests"), Some("2"));
        let cases: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].attribute("name"), Some("a & b"));
        assert_eq!(cases[1].attribute("name"), Some("line\ntwo"));
        let failure = cases[0].children().next().unwrap();
        assert_eq!(failure.name(), "failure");
        assert_eq!(failure.text(), Some("boom <1> & more"));
        assert_eq!(failure.attribute("message"), Some(""));
        assert_eq!(cases[1].children().count(), 0);
        assert_eq!(root.children().count(), 1);
        // Descendants of an element stay inside it.
        assert_eq!(cases[0].descendants().count(), 3);
    }

    #[test]
    fn malformed_documents_are_refused() {
        for bad in [
            "",
            "   ",
            "<a><b></a>",
            "<a>",
            "<a/><b/>",
            "text<a/>",
            "<a x=\"1\" x=\"2\"/>",
            "<a>&nbsp;</a>",
            // A DTD's entities are never expanded.
            "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>",
            "<a b=c/>",
        ] {
            assert!(Document::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
