/** The part of lookml-parser (a LookML parser) the lookml source uses. */
declare module 'lookml-parser' {
  const lookmlParser: {parse(text: string): unknown}
  export default lookmlParser
}
