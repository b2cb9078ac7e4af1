/**
 * `com.linkedin.identity`: users and groups — profile info, editable info, status, credentials,
 * settings and group/role memberships.
 */
import {arrayOf, auditStamp, bool, customProperties, long, record, str, url, urn, versioned} from './common.js'
import type {AspectSpec} from './types.js'

const I = 'com.linkedin.identity.'

export const IDENTITY_ASPECTS: AspectSpec[] = [
  versioned('corpUserInfo', `${I}CorpUserInfo`, record({active: bool}, {
    ...customProperties,
    displayName: str,
    email: str,
    title: str,
    managerUrn: urn,
    departmentId: long,
    departmentName: str,
    firstName: str,
    lastName: str,
    fullName: str,
    countryCode: str,
    system: bool,
  })),
  versioned('corpUserEditableInfo', `${I}CorpUserEditableInfo`, record({}, {
    aboutMe: str,
    teams: arrayOf(str),
    skills: arrayOf(str),
    pictureLink: url,
    displayName: str,
    title: str,
    platforms: arrayOf(urn),
    persona: urn,
    slack: str,
    phone: str,
    email: str,
  })),
  versioned('corpUserStatus', `${I}CorpUserStatus`, record({status: str, lastModified: auditStamp})),
  versioned('corpUserCredentials', `${I}CorpUserCredentials`, record(
    {salt: str, hashedPassword: str},
    {passwordResetToken: str, passwordResetTokenExpirationTimeMillis: long},
  )),
  // DataHub encrypts the token with its secret service; here the aspect is a secret aspect that
  // no read returns (SECRET_ASPECTS), like the credentials above.
  versioned('inviteToken', `${I}InviteToken`, record({token: str}, {role: urn})),
  versioned('corpUserSettings', `${I}CorpUserSettings`, record(
    {appearance: record({}, {showSimplifiedHomepage: bool, showThemeV2: bool})},
    {views: record({}, {defaultView: urn})},
  )),
  versioned('groupMembership', `${I}GroupMembership`, record({groups: arrayOf(urn)})),
  versioned('nativeGroupMembership', `${I}NativeGroupMembership`, record({nativeGroups: arrayOf(urn)})),
  versioned('roleMembership', `${I}RoleMembership`, record({roles: arrayOf(urn)})),
  versioned('corpGroupInfo', `${I}CorpGroupInfo`, record(
    // admins/members/groups are deprecated (membership moved to groupMembership) yet still required.
    {admins: arrayOf(urn), members: arrayOf(urn), groups: arrayOf(urn)},
    {displayName: str, email: str, description: str, slack: str, created: auditStamp},
  )),
  versioned('corpGroupEditableInfo', `${I}CorpGroupEditableInfo`, record({}, {
    description: str,
    pictureLink: url,
    slack: str,
    email: str,
  })),
]
