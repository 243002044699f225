//! JSON, written piece by piece; the shape is [`super::ExportedTranscript`].

use std::io::Write;

use super::Sink;
use crate::catalog::SessionDetails;
use crate::model::{SubagentInfo, TranscriptMessage};

pub(super) struct Json<'a> {
    pub(super) out: &'a mut dyn Write,
    pub(super) first: bool,
}

impl Sink for Json<'_> {
    fn head(&mut self, d: &SessionDetails, now: &str) -> std::io::Result<()> {
        write!(self.out, "{{\"format\":\"corral-transcript\",\"version\":1,\"exportedAt\":")?;
        serde_json::to_writer(&mut *self.out, now)?;
        write!(self.out, ",\"session\":")?;
        serde_json::to_writer(&mut *self.out, &d.summary)?;
        write!(self.out, ",\"usage\":")?;
        serde_json::to_writer(&mut *self.out, &d.usage)?;
        write!(self.out, ",\"messages\":[")?;
        self.first = true;
        Ok(())
    }

    fn messages(&mut self, messages: &[TranscriptMessage]) -> std::io::Result<()> {
        for m in messages {
            if !self.first {
                write!(self.out, ",")?;
            }
            self.first = false;
            writeln!(self.out)?;
            serde_json::to_writer(&mut *self.out, m)?;
        }
        Ok(())
    }

    fn end_conversation(&mut self) -> std::io::Result<()> {
        write!(self.out, "],\"subagents\":[")?;
        self.first = true;
        Ok(())
    }

    fn subagent(&mut self, s: &SubagentInfo) -> std::io::Result<()> {
        if !self.first {
            write!(self.out, ",")?;
        }
        write!(self.out, "\n{{\"agentId\":")?;
        serde_json::to_writer(&mut *self.out, &s.agent_id)?;
        write!(self.out, ",\"agentType\":")?;
        serde_json::to_writer(&mut *self.out, &s.agent_type)?;
        write!(self.out, ",\"description\":")?;
        serde_json::to_writer(&mut *self.out, &s.description)?;
        write!(self.out, ",\"messages\":[")?;
        self.first = true;
        Ok(())
    }

    fn end_subagent(&mut self) -> std::io::Result<()> {
        write!(self.out, "]}}")?;
        self.first = false;
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        writeln!(self.out, "]}}")
    }
}
