//! The servers' tools beside catalog files' (`toolsift gateway FILE
//! --mcp …`, `check FILE --mcp …`): a name both use is the file's, and the
//! server's tool takes its server's prefix (`server__name`), as between two
//! servers; neither is dropped and nothing stops.

use std::collections::HashSet;

use crate::catalog::{Catalog, CatalogError, Tool};

/// `mcp` and `files` as one catalog, and a sentence for each server tool
/// that was prefixed.
pub fn merge_beside_files(
    mcp: Option<Catalog>,
    files: &[Catalog],
) -> Result<(Catalog, Vec<String>), CatalogError> {
    let Some(mcp) = mcp else {
        return match files {
            [] => Ok((Catalog::empty("mcp"), Vec::new())),
            [one] => Ok((one.clone(), Vec::new())),
            many => Ok((Catalog::merge(many.to_vec())?, Vec::new())),
        };
    };
    if files.is_empty() {
        return Ok((mcp, Vec::new()));
    }
    let taken: HashSet<&str> = files
        .iter()
        .flat_map(|c| c.tools().iter().map(|t| t.name.as_str()))
        .collect();
    let mut notes = Vec::new();
    let mcp = if mcp.tools().iter().any(|t| taken.contains(t.name.as_str())) {
        let mut names: HashSet<String> = mcp.tools().iter().map(|t| t.name.clone()).collect();
        let tools: Vec<Tool> = mcp
            .tools()
            .iter()
            .map(|t| {
                let Some(server) = t.mcp.as_ref().map(|m| m.server.clone()) else {
                    return t.clone();
                };
                if !taken.contains(t.name.as_str()) {
                    return t.clone();
                }
                let mut renamed = t.clone();
                let mut name = format!("{server}__{}", t.name);
                while taken.contains(name.as_str()) || names.contains(&name) {
                    name.push('_');
                }
                names.insert(name.clone());
                notes.push(format!(
                    "tool {} of server {} is listed as {}: a catalog file has a tool of that name",
                    serde_json::Value::from(t.name.as_str()),
                    serde_json::Value::from(server.as_ref()),
                    serde_json::Value::from(name.as_str()),
                ));
                renamed.name = name;
                renamed
            })
            .collect();
        Catalog::new(mcp.name(), tools)?
    } else {
        mcp
    };
    let mut all = vec![mcp];
    all.extend(files.iter().cloned());
    Ok((Catalog::merge(all)?, notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::McpOrigin;

    fn served(name: &str, server: &str) -> Tool {
        let mut t = Tool::new(name, "A tool of a server");
        t.mcp = Some(McpOrigin::new(server, name));
        t
    }

    #[test]
    fn a_name_both_use_is_the_files_and_the_servers_is_prefixed() {
        let mcp = Catalog::new(
            "mcp",
            vec![served("search", "docs"), served("fetch", "web")],
        )
        .unwrap();
        let file = Catalog::new("f", vec![Tool::new("search", "The file's search")]).unwrap();
        let (all, notes) = merge_beside_files(Some(mcp), &[file]).unwrap();
        let names: Vec<&str> = all.tools().iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["docs__search", "fetch", "search"]);
        // The server is still called by its own name for the tool.
        assert_eq!(all.tools()[0].mcp.as_ref().unwrap().name, "search");
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("\"docs__search\""), "{notes:?}");
        // Two files that share a name are still an error.
        let a = Catalog::new("a", vec![Tool::new("x", "x")]).unwrap();
        assert!(merge_beside_files(None, &[a.clone(), a]).is_err());
    }
}
