import {appOperations} from '/work/wt-webapp/dist/test/helpers/datahub-documents.js'
import {print} from 'graphql'
const ops = appOperations('/work/shared/clients/datahub-web-react-build')
for (const n of process.argv.slice(2)) console.log(print(ops.find((o) => o.name === n).document))
